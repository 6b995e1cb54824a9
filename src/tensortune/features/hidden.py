"""Hidden features: what compiling a configuration reveals beyond its knob values (ML2Tuner's model A).

ML2Tuner's model A adds to the visible features (knob values) what the compiler derives while building
the configuration: loop trip counts after tiling, boundary handling, buffer sizes, branch decisions.
Here every feature comes from a real compile step of the task's template, never from the knobs by hand:

- **TVM targets** (``llvm``, ``cuda``): the template's schedule is built into a TIR module and
  MetaSchedule's ``PerStoreFeature`` analyses it (164 features per buffer store: loop extents and
  annotations (vectorised lanes, unrolled and parallel extents), arithmetic counts, bytes and reuse of
  every buffer touched, allocation sizes). The per-store rows are reduced to their sum and maximum
  (the number of stores can differ between schedules) plus the store count.
- **The accelerator target** (``vta-sim``): its compiler step (``VtaConv2d.instantiate``) derives, per
  layer, the entries each tile occupies in the input, weight, accumulator and micro-op buffers, the
  buffer depths of the design, the output tile and input-channel step counts, the GEMM instruction
  count, padded MACs and padded channels. The simulator's outcome (cycles, per-instruction cycle
  estimates and the violation verdict) is *not* a feature: that is what is being predicted.

Features are cached per configuration; ``compiles`` and ``seconds`` count the compile work, which
ML2Tuner pays for (alpha + 1) * N configurations per round.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from tensortune.core.values import Task
from tensortune.space import Config
from tensortune.templates import get_template

# what the VTA simulator decides, or estimates cycle by cycle: outcomes, not compiler output
VTA_OUTCOMES = frozenset({"cycles", "violation", "need", "have", "load_cycles", "gemm_cycles", "store_cycles"})


class HiddenFeatures:
    def __init__(self, task: Task) -> None:
        self.task = task
        self.template = get_template(task.template)
        self.kind = getattr(self.template, "target_kind", "llvm")
        self._cache: dict[Config, np.ndarray] = {}
        self._width: int | None = None
        self.compiles = 0
        self.seconds = 0.0
        self._tvm: tuple[Any, Any, Any] | None = None

    def __call__(self, configs: list[Config]) -> np.ndarray:
        """An (n, d) matrix of hidden features (NaN where a configuration does not compile)."""
        rows = []
        for c in configs:
            if c not in self._cache:
                t0 = time.perf_counter()
                self._cache[c] = self._extract(c)
                self.seconds += time.perf_counter() - t0
                self.compiles += 1
            rows.append(self._cache[c])
        width = max((len(r) for r in rows if r is not None), default=0)
        self._width = max(self._width or 0, width)
        out = np.full((len(rows), self._width), np.nan)
        for i, r in enumerate(rows):
            out[i, : len(r)] = r
        return out

    def _extract(self, cfg: Config) -> np.ndarray:
        values = self.task.space.values(cfg)
        if self.kind == "vta-sim":
            return self._vta(values)
        return self._tir(values)

    def _vta(self, values: dict[str, Any]) -> np.ndarray:
        layers = self.template.instantiate(self.task.workload, values, self.task.target)  # type: ignore[call-arg]
        feats = []
        for d in layers:
            feats += [float(d[k]) for k in sorted(d) if k not in VTA_OUTCOMES]
        return np.log2(1.0 + np.maximum(np.array(feats, dtype=np.float64), 0.0))

    def _tir(self, values: dict[str, Any]) -> np.ndarray:
        from tensortune.templates.base import InstantiationError

        ext, ctx, ms = self._tvm_parts()
        try:
            mod = self.template.instantiate(self.task.workload, values)
        except InstantiationError:
            return np.full(2 * 164 + 1, np.nan)
        from tvm import s_tir

        sch = s_tir.Schedule(mod)
        cand = ms.MeasureCandidate(sch, ms.arg_info.ArgInfo.from_prim_func(mod["main"]))
        per_store = ext.extract_from(ctx, [cand])[0].numpy()
        if per_store.size == 0:
            return np.concatenate([np.zeros(2 * 164), [0.0]])
        return np.concatenate([per_store.sum(axis=0), per_store.max(axis=0), [float(len(per_store))]])

    def _tvm_parts(self) -> tuple[Any, Any, Any]:
        if self._tvm is None:
            from tvm.s_tir import meta_schedule as ms

            from tensortune.measure.tvm_jobs import _tvm_target

            target = _tvm_target(self.task.target_json)
            mod = self.template.instantiate(self.task.workload, self.task.space.values(self.task.space.sample(
                1, np.random.default_rng(0))[0]))
            self._tvm = (ms.feature_extractor.PerStoreFeature(), _tune_context(ms, mod, target), ms)
        return self._tvm


def _tune_context(ms: Any, mod: Any, target: Any) -> Any:
    """A MetaSchedule TuneContext for feature extraction only. ``TuneContext.__init__`` first imports
    every tensor intrinsic TVM ships (``tvm.s_tir.tensor_intrin``, 30 s here), which feature extraction
    does not use, so the object is built with the same FFI constructor it calls, without that import."""
    from tvm.s_tir.meta_schedule import _ffi_api
    from tvm.s_tir.meta_schedule.logging import get_logger, get_logging_func

    ctx = ms.TuneContext.__new__(ms.TuneContext)
    ctx.__init_handle_by_constructor__(_ffi_api.TuneContext, mod, target, None, None, "main", 1, -1,
                                       get_logging_func(get_logger(__name__)))
    _ffi_api.TuneContextInitialize(ctx)
    return ctx
