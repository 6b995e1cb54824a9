"""The fault-injection suite's helpers: tagged subprocesses, the process census, stored trials.

Every process a fault test starts carries ``TT_FAULT_TAG=<uuid>`` in its environment, which worker
processes (and the compilers they start) inherit, so "no process of ours is left" is checked by
looking for that tag in ``/proc/*/environ``, not by name. Each test adds a row to the report (fault,
times injected, runs completed, records lost, records duplicated, processes left, the message the
user saw); the table is printed after the run and written as JSON to ``$TENSORTUNE_FAULT_REPORT``
when that is set.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
import uuid


def tagged_pids(tag: str) -> list[int]:
    """Live processes whose environment carries ``TT_FAULT_TAG=tag`` (zombies excluded)."""
    out = []
    needle = f"TT_FAULT_TAG={tag}".encode()
    for d in os.listdir("/proc"):
        if not d.isdigit() or int(d) == os.getpid():
            continue
        try:
            with open(f"/proc/{d}/stat", "rb") as f:
                if f.read().rsplit(b")", 1)[1].split()[0] == b"Z":
                    continue
            with open(f"/proc/{d}/environ", "rb") as f:
                if needle in f.read().split(b"\0"):
                    out.append(int(d))
        except (OSError, IndexError):
            continue
    return out


def wait_gone(tag: str, seconds: float) -> list[int]:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        left = tagged_pids(tag)
        if not left:
            return []
        time.sleep(0.1)
    return tagged_pids(tag)


def kill_tagged(tag: str) -> None:
    for pid in tagged_pids(tag):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def trials(db: str) -> list[tuple]:
    """(run, task, config) of every stored trial, in insertion order ([] if there is no table yet)."""
    if not os.path.exists(db):
        return []
    try:
        c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
        try:
            return c.execute("SELECT run_id, task_key, config_index FROM records WHERE kind='trial' ORDER BY id").fetchall()
        finally:
            c.close()
    except sqlite3.OperationalError:
        return []


def error_kinds(db: str) -> list[tuple[int, str]]:
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        return c.execute("SELECT error, message FROM records WHERE kind='trial' ORDER BY id").fetchall()
    finally:
        c.close()


class Tagged:
    """Starts tensortune commands (or Python code) with the test's tag in their environment."""

    def __init__(self) -> None:
        self.tag = uuid.uuid4().hex
        self.env = dict(os.environ, TT_FAULT_TAG=self.tag, OMP_WAIT_POLICY="PASSIVE")

    def popen(self, args: list[str], **kw) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-m", "tensortune.cli.main", *args], env={**self.env, **kw.pop("env", {})},
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)

    def run(self, args: list[str], timeout: float = 600, **kw) -> subprocess.CompletedProcess:
        return subprocess.run([sys.executable, "-m", "tensortune.cli.main", *args], env={**self.env, **kw.pop("env", {})},
                              capture_output=True, text=True, timeout=timeout, **kw)

    def python(self, code: str, **kw) -> subprocess.Popen:
        return subprocess.Popen([sys.executable, "-c", code], env=self.env, stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True, start_new_session=True, **kw)

    def left(self, seconds: float = 5.0) -> list[int]:
        return wait_gone(self.tag, seconds)


