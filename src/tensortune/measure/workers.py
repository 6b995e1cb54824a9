"""Isolated worker processes with hard timeouts.

A worker is a spawned Python process that runs named functions (``module:function``) sent over a
pipe. If a call overruns its timeout, the worker's whole process group is killed (SIGKILL: the
worker and anything it started, such as the C compiler of ``export_library``) and replaced; if the
worker dies (a kernel segfaults, the OOM killer strikes), the call reports how it died. Either way
the caller gets an answer and goes on. This is what lets a tuning run survive broken kernels.

Nothing outlives the tuner: a worker dies with its parent (``PR_SET_PDEATHSIG``, and it exits if
the parent is already gone), each call runs under a CPU-time limit that its children inherit (so a
compiler or kernel left spinning after a SIGKILL of everything else stops by itself), an optional
address-space limit bounds its memory, and the kernel's OOM killer picks a worker before the tuner.
"""

from __future__ import annotations

import importlib
import os
import signal
import socket
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from typing import Any


@dataclass(frozen=True)
class CallOutcome:
    status: str  # "ok" | "exception" | "memory" | "timeout" | "died"
    value: Any = None
    message: str = ""


def _die_with_parent(parent_pid: int) -> None:
    """SIGKILL this process when the thread that started it (the tuner) exits; exit now if it is gone."""
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, int(signal.SIGKILL), 0, 0, 0)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass
    if os.getppid() != parent_pid:
        os._exit(1)
    try:  # preferred by the OOM killer over the tuner (raising one's own score needs no privilege)
        with open("/proc/self/oom_score_adj", "w") as f:
            f.write("1000")
    except OSError:
        pass


def _cpu_limit(seconds: float) -> None:
    """Cap this process's CPU time at what it has used plus ``seconds`` (SIGXCPU, which terminates it).
    Children inherit the cap, each from zero: a compiler or kernel can never spin for ever. Only the
    soft limit moves (a hard limit, once lowered, could not be raised again)."""
    import resource

    used = resource.getrusage(resource.RUSAGE_SELF)
    soft = int(used.ru_utime + used.ru_stime + seconds) + 1
    hard = resource.getrlimit(resource.RLIMIT_CPU)[1]
    if hard != resource.RLIM_INFINITY:
        soft = min(soft, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (soft, hard))


def _entry(fd: int, memory_limit_bytes: int, parent_pid: int = 0) -> None:
    """Entry point of a worker process (``python -c``), talking over an inherited socket."""
    if parent_pid:
        _die_with_parent(parent_pid)
    _worker_main(Connection(fd), memory_limit_bytes or None)


def _worker_main(conn: Connection, memory_limit_bytes: int | None) -> None:
    if memory_limit_bytes:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))
    while True:
        try:
            msg = conn.recv()
        except (EOFError, KeyboardInterrupt):
            return
        if msg is None:
            return
        fn_path, args, cpu_seconds = msg
        if cpu_seconds:
            _cpu_limit(cpu_seconds)
        try:
            mod, name = fn_path.split(":")
            fn = getattr(importlib.import_module(mod), name)
            conn.send(("ok", fn(*args)))
        except MemoryError:
            conn.send(("memory", "MemoryError: the call ran past the worker's memory limit", ""))
        except BaseException as e:  # report everything, the parent decides
            conn.send(("exception", f"{type(e).__name__}: {e}", traceback.format_exc(limit=8)))


class Worker:
    """One isolated process; restarted lazily after a kill or a crash."""

    def __init__(self, env: dict[str, str] | None = None, memory_limit_bytes: int | None = None,
                 log_path: str | None = None, cpu_factor: float = 1.0) -> None:
        self._log = log_path or os.environ.get("TENSORTUNE_WORKER_LOG")
        self._env = dict(env or {})
        self._mem = memory_limit_bytes
        # CPU seconds a call may use per second of its timeout (a runner's threads all count), plus slack
        self._cpu_factor = cpu_factor
        self._proc: Any = None
        self._conn: Connection | None = None
        self.deadline: float | None = None

    def _start(self) -> None:
        # a fresh interpreter (not fork: TVM holds threads; not multiprocessing spawn: it re-imports
        # the caller's __main__)
        parent, child = socket.socketpair()
        fd = child.fileno()
        code = f"from tensortune.measure.workers import _entry; _entry({fd}, {self._mem or 0}, {os.getpid()})"
        env = dict(os.environ, **self._env)
        # the worker's own output (LLVM warnings, crash backtraces) goes to a log, not the user's terminal
        log = open(self._log, "ab") if self._log else subprocess.DEVNULL  # noqa: SIM115
        self._proc = subprocess.Popen([sys.executable, "-c", code], pass_fds=(fd,), env=env, start_new_session=True,
                                      stdin=subprocess.DEVNULL, stdout=log, stderr=log)
        if self._log:
            log.close()
        child.close()
        self._conn = Connection(parent.detach())

    @property
    def conn(self) -> Connection:
        assert self._conn is not None
        return self._conn

    def submit(self, fn: str, args: tuple[Any, ...], timeout: float) -> None:
        if self._proc is None or self._proc.poll() is not None:
            self._start()
        self.conn.send((fn, args, timeout * self._cpu_factor + 10.0))
        self.deadline = time.monotonic() + timeout

    def collect(self) -> CallOutcome:
        """Read the answer of a submitted call whose pipe is readable."""
        self.deadline = None
        try:
            msg = self.conn.recv()
        except (EOFError, OSError):
            return CallOutcome("died", message=self._death_message())
        if msg[0] == "ok":
            return CallOutcome("ok", msg[1])
        return CallOutcome(msg[0], message=msg[1], value=msg[2])

    @property
    def pid(self) -> int | None:
        return None if self._proc is None else self._proc.pid

    def kill(self) -> None:
        """SIGKILL the worker's process group: the worker and whatever it started (a compiler, a shell)."""
        self.deadline = None
        if self._proc is not None:
            try:
                os.killpg(self._proc.pid, signal.SIGKILL)  # its own session: the group id is its pid
            except (ProcessLookupError, PermissionError):
                pass
            try:
                self._proc.wait(5)
            except subprocess.TimeoutExpired:
                pass
        self._proc = None
        if self._conn is not None:
            self._conn.close()
        self._conn = None

    def _death_message(self) -> str:
        proc = self._proc
        code = None
        if proc is not None:
            try:
                code = proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait(5)
        self._proc = None
        if self._conn is not None:
            self._conn.close()
            self._conn = None
        if proc is not None:
            try:  # whatever it started goes with it
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        if code is not None and code < 0:
            try:
                name = signal.Signals(-code).name
            except ValueError:
                name = f"signal {-code}"
            if name == "SIGXCPU":
                return "worker process ran past its CPU-time limit (SIGXCPU)"
            return f"worker process died with {name}"
        return f"worker process died (exit code {code})"

    def call(self, fn: str, args: tuple[Any, ...], timeout: float) -> CallOutcome:
        self.submit(fn, args, timeout)
        if self.conn.poll(timeout):
            return self.collect()
        self.kill()
        return CallOutcome("timeout", message=f"no answer within {timeout:.1f} s; worker killed")

    def close(self) -> None:
        if self._proc is not None and self._proc.poll() is None:
            try:
                self.conn.send(None)
                self._proc.wait(2)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()


class WorkerPool:
    """N workers; ``map`` runs calls in parallel, each with its own timeout, results in order."""

    def __init__(self, n: int, env: dict[str, str] | None = None, memory_limit_bytes: int | None = None,
                 cpu_factor: float = 1.0) -> None:
        if n < 1:
            raise ValueError("a worker pool needs at least one worker")
        self.workers = [Worker(env, memory_limit_bytes, cpu_factor=cpu_factor) for _ in range(n)]

    def map(self, fn: str, arg_list: list[tuple[Any, ...]], timeout: float) -> list[CallOutcome]:
        out: list[CallOutcome | None] = [None] * len(arg_list)
        pending = list(range(len(arg_list)))[::-1]
        busy: dict[int, int] = {}  # worker index -> call index
        while pending or busy:
            for wi, w in enumerate(self.workers):
                if wi not in busy and pending:
                    ci = pending.pop()
                    w.submit(fn, arg_list[ci], timeout)
                    busy[wi] = ci
            now = time.monotonic()
            nearest = min(self.workers[wi].deadline or now for wi in busy)
            ready = wait([self.workers[wi].conn for wi in busy], timeout=max(0.0, nearest - now))
            for wi in list(busy):
                w = self.workers[wi]
                if w.conn in ready:
                    out[busy.pop(wi)] = w.collect()
                elif w.deadline is not None and time.monotonic() >= w.deadline:
                    w.kill()
                    out[busy.pop(wi)] = CallOutcome("timeout", message=f"no answer within {timeout:.1f} s; worker killed")
        return [o for o in out if o is not None]

    def close(self) -> None:
        for w in self.workers:
            w.close()
