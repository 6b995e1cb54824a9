"""The tuned end-to-end build: best schedules into a MetaSchedule database, then plain TVM Relax
compiles the model with them; output check against PyTorch and latency timing."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.models.importer import ImportedModel
from tensortune.models.tasks import fusion_passes


@dataclass(frozen=True)
class TunedSchedule:
    """A task's chosen schedule: the fused function, the template that made it and its knob values."""

    mod: Any
    template: str
    values: dict[str, Any]
    cost: float  # seconds, as measured
    task_key: str  # the task's key (its file in the task directory)


def to_database(schedules: list[TunedSchedule], target: dict[str, Any], database: Any = None) -> Any:
    """Commit each schedule's trace as a MetaSchedule tuning record (a MemoryDatabase by default)."""
    import tvm
    from tvm.s_tir import meta_schedule as ms
    from tvm.s_tir.meta_schedule.arg_info import ArgInfo

    from tensortune.templates import get_template
    from tensortune.workloads.tir import TirWorkload

    db = database if database is not None else ms.database.MemoryDatabase()
    tgt = tvm.target.Target(target)
    for s in schedules:
        tmpl = get_template(s.template)
        sch = tmpl.schedule(TirWorkload(s.task_key), s.values)  # type: ignore[attr-defined]
        wl = db.commit_workload(s.mod)
        db.commit_tuning_record(ms.database.TuningRecord(sch.trace, wl, [float(s.cost)], tgt,
                                                         ArgInfo.from_prim_func(s.mod["main"])))
    return db


def build_model(model: ImportedModel, target: dict[str, Any], database: Any = None) -> Any:
    """Compile the model with Relax; with a database, its schedules replace the matching fused
    functions (weights whose layout a schedule rewrote are transformed once, at build time); the
    rest is compiled as TVM lowers it by default."""
    import tvm
    from tvm import relax
    tgt = tvm.target.Target(target)
    mod = relax.transform.BindParams("main", model.params)(model.mod)

    @tvm.transform.module_pass(opt_level=3)
    def pipeline(m: Any, _ctx: Any) -> Any:
        m = tvm.transform.Sequential(fusion_passes(tgt))(m)
        if database is not None:
            m = relax.transform.MetaScheduleApplyDatabase(enable_warning=False)(m)
            m = relax.transform.SplitLayoutRewritePreproc()(m)
            m = relax.transform.FoldConstant()(m)
            m = relax.transform.DeadCodeElimination()(m)
        return tvm.transform.Sequential(_lower_passes(tgt))(m)

    with tgt, tvm.transform.PassContext(opt_level=3):
        if database is not None:
            with database:
                return relax.build(mod, target=tgt, relax_pipeline=pipeline)
        return relax.build(mod, target=tgt, relax_pipeline=pipeline)


def _lower_passes(target: Any) -> list[Any]:
    """Relax's lowering and finalisation for the target (as ``compile_relax``, with its fallback)."""
    from tvm import relax
    from tvm.relax import pipeline as rp

    try:
        return list(rp.dataflow_lower_passes(target)) + list(rp.finalize_passes(target))
    except (ValueError, AttributeError):
        t = relax.transform
        return [t.RewriteDataflowReshape(), t.ToNonDataflow(), t.RemovePurityChecking(), t.CallTIRRewrite(),
                t.StaticPlanBlockMemory(), t.LowerAllocTensor(), t.KillAfterLastUse(), t.LowerRuntimeBuiltin(),
                t.ComputePrimValue(), t.VMShapeLower(), t.AttachGlobalSymbol()]


@dataclass
class Timing:
    median_ms: float
    repeats_ms: list[float]


def run_model(executable: Any, x: np.ndarray) -> np.ndarray:
    import tvm
    from tvm import relax

    vm = relax.VirtualMachine(executable, tvm.cpu())
    out = vm["main"](tvm.runtime.tensor(x, tvm.cpu()))
    if isinstance(out, tvm.runtime.Tensor):
        return out.numpy()
    return out[0].numpy()


def time_model(executable: Any, x: np.ndarray, repeat: int = 10, min_repeat_ms: int = 200) -> Timing:
    import tvm
    from tvm import relax

    dev = tvm.cpu()
    vm = relax.VirtualMachine(executable, dev)
    inp = tvm.runtime.tensor(x, dev)
    vm["main"](inp)
    ev = vm.time_evaluator("main", dev, number=1, repeat=repeat, min_repeat_ms=min_repeat_ms)
    res = [float(v) * 1e3 for v in ev(inp).results]
    return Timing(float(np.median(res)), res)


def time_torch(module: Any, x: np.ndarray, repeat: int = 10, min_repeat_ms: int = 200, threads: int | None = None) -> Timing:
    """PyTorch eager (oneDNN) latency, in the same protocol: each repeat loops at least
    ``min_repeat_ms`` and reports the mean per call."""
    import os

    import torch

    torch.set_num_threads(threads or os.cpu_count() or 1)
    t = torch.from_numpy(x)
    res = []
    with torch.no_grad():
        module(t)
        for _ in range(repeat):
            n, t0 = 0, time.perf_counter()
            while True:
                module(t)
                n += 1
                el = time.perf_counter() - t0
                if el * 1e3 >= min_repeat_ms:
                    break
            res.append(el / n * 1e3)
    return Timing(float(np.median(res)), res)


def max_error(out: np.ndarray, ref: np.ndarray) -> tuple[float, float]:
    """(max abs error, max abs of the reference)."""
    return float(np.max(np.abs(out.astype(np.float64) - ref))), float(np.max(np.abs(ref)))
