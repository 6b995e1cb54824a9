"""How many threads TVM's runtime gives a compiled kernel, and making it the target's core count.

TVM sizes each calling thread's worker pool once, when that thread first runs a parallel loop: from
``TVM_NUM_THREADS`` if set, else from the hardware concurrency, which on x86 it *halves* to skip
hyper-threads. On a machine without SMT (this 2-core VM: 2 logical = 2 physical cores) the default is
therefore half the cores, and ``runtime.config_threadpool`` can lower the pool later but never raise
it above that first size. Our measurers always set ``TVM_NUM_THREADS`` in their runner processes, so
kernels were tuned on all the target's cores; a model run in the tuner's own process without it ran
every tuned parallel kernel on one core (ResNet-18: 313 ms with 1 thread vs 164 ms with 2, same
executable). Everything that runs compiled code in-process goes through :func:`call_with_threads`.

A second trap: TVM pins each pool worker to one core (workers 1..n-1 to cores 1..n-1) and gives the
calling thread, which runs chunk 0 of every parallel loop, *all* cores, assuming the OS will put it on
the idle core 0. When the OS leaves it on a worker's core, the two share that core and every parallel
kernel runs at half speed until the load balancer moves it, which on this VM took from under a second to
the whole of a timing run (ResNet-18: 18.3 ms instead of 9.7 ms in one run; a conv measured at 1,000 us
and 500 us in one process). :func:`pin_caller` puts the calling thread on the cores no pinned worker
holds; the runners and every in-process model run call it once their pool exists.

And a third: a pool of one worker (TVM's default here) pins the *calling thread itself* to core 0. Every
thread that thread starts later inherits that, so ONNX Runtime's and PyTorch's pools, created in the
tuning process after TVM had run there, put both their threads on core 0: ONNX Runtime took 32 ms for
ResNet-18 instead of 10 (the unexplained "every timing in the tuning process is slower" of earlier
reports). Peers run under :func:`unpinned`.

And a fourth, in the process that times kernels: NumPy's OpenBLAS keeps a pool of its own (one thread
per further core), and after each threaded call its threads spin for about 2^28 cycles (~0.1 s) before
they sleep. A runner computes a task's reference output with NumPy (an einsum, threaded) just before it
times the task's first config, so that config's first ~0.1 s of timing shared a core with a spinning BLAS
thread: on L6 the first config a fresh runner timed read 0.21-0.49 of its confirmed speed (stop 107; per
repeat 46, 51, then 103 GFLOP/s against 107 confirmed), the first config of each task in every runner,
restarted every 256 kernels. :func:`runner_env` keeps BLAS single-threaded in the runner (its reference
takes a little longer, once per task); nothing else of the runner then runs beside a kernel.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

T = TypeVar("T")

ENV = "TVM_NUM_THREADS"


# helper thread pools that spin after their work, kept to the calling thread in a runner (not OpenMP's:
# a TVM runtime built with OpenMP would then run every kernel on one core)
QUIET_POOLS = {"OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "BLIS_NUM_THREADS": "1"}


def runner_env(n: int) -> dict[str, str]:
    """Environment of a process that times kernels on ``n`` cores: TVM's pool at ``n`` workers and no
    other pool beside it (the module docstring's fourth trap)."""
    return {ENV: str(int(n)), **QUIET_POOLS}


def target_cores(target: dict[str, Any]) -> int:
    """The core count a CPU target was tuned for (``num-cores``), else every core of this machine."""
    n = target.get("num-cores") if isinstance(target, dict) else None
    return max(1, int(n)) if n else max(1, os.cpu_count() or 1)


def runtime_threads() -> int:
    """Workers of TVM's pool for the calling thread (creating the pool if it has none yet)."""
    import tvm

    return int(tvm.get_global_func("runtime.NumThreads")())


def set_default_threads(n: int) -> None:
    """Make ``n`` the pool size of every thread and process that creates its TVM pool from now on
    (worker processes inherit it)."""
    os.environ[ENV] = str(int(n))


def pinned_cores() -> set[int]:
    """Cores that some other thread of this process is pinned to alone (TVM's pool workers), Linux only."""
    me = threading.get_native_id()
    cores: set[int] = set()
    try:
        tasks = os.listdir("/proc/self/task")
    except OSError:
        return cores
    for tid in tasks:
        if tid == str(me):
            continue
        try:
            with open(f"/proc/self/task/{tid}/status") as f:
                line = next((ln for ln in f if ln.startswith("Cpus_allowed_list:")), "")
        except OSError:
            continue
        cpus = line.split(":", 1)[-1].strip()
        if cpus.isdigit():
            cores.add(int(cpus))
    return cores


def pin_caller() -> set[int] | None:
    """Pin the calling thread to the cores that no TVM pool worker holds (see the module docstring);
    the cores it now runs on, or None where this cannot be done (not Linux, or no core is free)."""
    if not hasattr(os, "sched_setaffinity"):
        return None
    runtime_threads()  # the pool exists, so its workers are pinned already
    allowed = os.sched_getaffinity(0)  # pid 0: the calling thread
    free = allowed - pinned_cores()
    if not free:
        return None
    if free != allowed:
        os.sched_setaffinity(0, free)
    return free


@contextlib.contextmanager
def _affinity_restored() -> Iterator[None]:
    """The calling thread's core affinity as it was after the block (no-op where the OS has none)."""
    before = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    try:
        yield
    finally:
        if before is not None:
            os.sched_setaffinity(0, before)


@contextlib.contextmanager
def off_worker_cores() -> Iterator[None]:
    """The calling thread on the cores no TVM pool worker holds (:func:`pin_caller`) for the duration;
    afterwards its other work (peers, compiling) may use every core again."""
    with _affinity_restored():
        pin_caller()
        yield


@contextlib.contextmanager
def unpinned() -> Iterator[None]:
    """The calling thread may run on every core of this machine (the OS still applies the process's
    cpuset) for the duration, so the threads it starts (a peer's pool) may too; then as it was."""
    with _affinity_restored():
        if hasattr(os, "sched_setaffinity"):
            with contextlib.suppress(OSError):
                os.sched_setaffinity(0, range(os.cpu_count() or 1))
        yield


def call_with_threads(n: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` with TVM's pool at ``n`` workers: in this thread if its pool has (or
    can still get) that size, else in a fresh thread whose pool is created at that size."""
    set_default_threads(n)
    if runtime_threads() == n:
        with off_worker_cores():
            return fn(*args, **kwargs)
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            pin_caller()
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    t = threading.Thread(target=run, name=f"tvm-{n}-threads")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
