"""How many threads TVM's runtime gives a compiled kernel, and making it the target's core count.

TVM sizes each calling thread's worker pool once, when that thread first runs a parallel loop: from
``TVM_NUM_THREADS`` if set, else from the hardware concurrency, which on x86 it *halves* to skip
hyper-threads. On a machine without SMT (this 2-core VM: 2 logical = 2 physical cores) the default is
therefore half the cores, and ``runtime.config_threadpool`` can lower the pool later but never raise
it above that first size. Our measurers always set ``TVM_NUM_THREADS`` in their runner processes, so
kernels were tuned on all the target's cores; a model run in the tuner's own process without it ran
every tuned parallel kernel on one core (ResNet-18: 313 ms with 1 thread vs 164 ms with 2, same
executable). Everything that runs compiled code in-process goes through :func:`call_with_threads`.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

ENV = "TVM_NUM_THREADS"


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


def call_with_threads(n: int, fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """``fn(*args, **kwargs)`` with TVM's pool at ``n`` workers: in this thread if its pool has (or
    can still get) that size, else in a fresh thread whose pool is created at that size."""
    set_default_threads(n)
    if runtime_threads() == n:
        return fn(*args, **kwargs)
    box: dict[str, Any] = {}

    def run() -> None:
        try:
            box["value"] = fn(*args, **kwargs)
        except BaseException as e:  # re-raised in the caller's thread
            box["error"] = e

    t = threading.Thread(target=run, name=f"tvm-{n}-threads")
    t.start()
    t.join()
    if "error" in box:
        raise box["error"]
    return box["value"]
