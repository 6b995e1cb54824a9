"""Peers measured live in the same benchmark run: TVM MetaSchedule's own search and PyTorch's oneDNN.

MetaSchedule tunes the *same* PrimFunc our conv template schedules (NCHW data, weight packed into
``[K/16, C, R, S, 16]``, NCHW output), with its default design space (post-order-apply), XGBoost cost
model and evolutionary search (``tune_tir``), and the same timing protocol as our ground-truth tables
(3 repeats of at least 20 ms, median). Its own profiler splits the wall time into search/cost-model
work and building/running candidates.
"""

from __future__ import annotations

import statistics
import tempfile
import time
from typing import Any

from tensortune.bench.traces import RunTrace
from tensortune.core.values import Task

MS_PACK = 16  # vector block of the packed weight given to MetaSchedule
# profiler scopes that are measurement, not search (MetaSchedule's task scheduler names them so)
_MEASURE_SCOPES = ("SendToBuilder", "SendToRunner", "JoinRunnerFutures")


def metaschedule_func(task: Task) -> Any:
    from tensortune.templates import get_template

    wl = task.workload
    if getattr(wl, "op", "") != "conv2d_nchw":
        raise ValueError(f"the MetaSchedule peer is set up for conv2d, not {wl.key}")
    if wl.out_channels % MS_PACK:
        raise ValueError(f"{wl.key}: output channels not a multiple of {MS_PACK}")
    func, _ = get_template("conv2d_nchw.llvm").compute(wl, MS_PACK)  # type: ignore[attr-defined]
    return func


def run_metaschedule(task: Task, layer: str, seed: int, trials: int, repeat: int = 3, min_repeat_ms: int = 20,
                     trials_per_iter: int = 64, work_dir: str | None = None) -> RunTrace:
    """``tune_tir`` for ``trials`` measurements; a trace of every measurement in order."""
    import tvm
    from tvm.ir.utils import derived_object
    from tvm.s_tir import meta_schedule as ms

    from tensortune.core.intrinsics import register_tensor_intrinsics
    from tensortune.core.threads import set_default_threads, target_cores
    from tensortune.integrations.metaschedule_build import close_runner, cpu_builder
    from tensortune.integrations.metaschedule_strategy import detach_foreign_meta_schedule_log_handlers

    func = metaschedule_func(task)
    target = tvm.target.Target(task.target)
    register_tensor_intrinsics(target)  # this target's alone, not all TVM ships (core/intrinsics.py)
    set_default_threads(target_cores(task.target))  # its runner processes inherit it, as ours get it
    batches: list[tuple[float, list[float]]] = []

    @derived_object
    class _Record(ms.measure_callback.PyMeasureCallback):
        def apply(self, task_scheduler: Any, task_id: int, measure_candidates: Any, builder_results: Any,
                  runner_results: Any) -> None:
            out = []
            for b, r in zip(builder_results, runner_results, strict=True):
                secs = [float(x) for x in (r.run_secs or [])]
                ok = b.error_msg is None and r.error_msg is None and secs
                out.append(task.flops / statistics.median(secs) / 1e9 if ok else 0.0)
            batches.append((time.perf_counter(), out))

    runner = ms.runner.LocalRunner(
        evaluator_config=ms.runner.EvaluatorConfig(number=1, repeat=repeat, min_repeat_ms=min_repeat_ms))
    callbacks = list(ms.measure_callback.MeasureCallback.create("default")) + [_Record()]
    try:
        with tempfile.TemporaryDirectory(prefix="tensortune-ms-", dir=work_dir) as wd:
            detach_foreign_meta_schedule_log_handlers()  # tune_tir rebuilds logging from them
            with ms.Profiler() as prof:
                t0 = time.perf_counter()
                ms.tune_tir(func, target, wd, max_trials_global=trials, num_trials_per_iter=trials_per_iter,
                            builder=cpu_builder(),  # see integrations/metaschedule_build.py
                            runner=runner, measure_callbacks=callbacks, seed=seed, num_tuning_cores=2)
                total = time.perf_counter() - t0
            timers = {str(k): float(v) for k, v in prof.get().items()}
    finally:
        close_runner(runner)
    trace = RunTrace("metaschedule", layer, seed, "live")
    prev = t0
    for end, gs in batches:  # spread each batch's wall time over its trials
        for j, g in enumerate(gs, 1):
            trace.gflops.append(g)
            trace.wall.append(prev - t0 + (end - prev) * j / len(gs))
        prev = end
    trace.measure_s = sum(timers.get(k, 0.0) for k in _MEASURE_SCOPES)
    trace.overhead_s = max(total - trace.measure_s, 0.0)
    trace.note = f"{trials} trials asked, {trace.trials} measured; {total:.1f} s"
    return trace
