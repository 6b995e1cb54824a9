"""Build function for MetaSchedule's ``LocalBuilder`` when it compares against us on the CPU.

MetaSchedule's default build imports ``tvm.s_tir.tensor_intrin`` in every builder process, and
``LocalBuilder`` starts fresh processes for every batch. On this machine that import alone takes
about 43 s, longer than the builder's 30 s timeout, so most candidates "fail to build" and the rest
cost minutes. Tensorization happens while scheduling, in the tuning process; building a scheduled
fp32 CPU kernel needs no intrinsic registry, so this does the same build without that import.
The module is kept free of tensortune imports so the worker process starts in seconds."""

from __future__ import annotations

from typing import Any


def build_cpu_kernel(mod: Any, target: Any, _params: Any = None) -> Any:
    """Same as ``s_tir.meta_schedule.builder.default_build`` minus the intrinsic registry import."""
    import tvm
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock

    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    return tvm.tirx.build(mod, target, "default")


def cpu_builder() -> Any:
    """MetaSchedule's ``LocalBuilder`` with :func:`build_cpu_kernel`: what our comparisons and tests pass."""
    from tvm.s_tir import meta_schedule as ms

    return ms.builder.LocalBuilder(f_build=build_cpu_kernel)


def close_runner(runner: Any) -> None:
    """Stop a ``LocalRunner``'s worker processes. MetaSchedule leaves them alive until the runner is
    garbage-collected, which in a long process (or a test session) may be never: idle 400 MB workers."""
    pool = getattr(runner, "pool", None)  # LocalRunner keeps a PopenPoolExecutor; other runners may not
    if pool is not None:
        pool.shutdown(wait=True)
