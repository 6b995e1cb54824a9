"""A tuning run as every benchmark sees it, whoever ran it: per trial, GFLOP/s (0 when the measurement
failed) and the wall clock; plus how much of the wall time was the tuner's own work. ``run_recipe`` runs
one of our recipes through the tuning loop and returns its trace; every benchmark suite (ground-truth
layers, VTA/ARCO, ML2Tuner) records its runs this way."""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tensortune.core.stats import trials_to_reach
from tensortune.core.values import Measurer, Task


@dataclass
class RunTrace:
    tuner: str
    layer: str
    seed: int
    mode: str  # "replay" (measurements answered by a ground-truth table) or "live"
    gflops: list[float] = field(default_factory=list)  # per trial, 0.0 when invalid
    wall: list[float] = field(default_factory=list)  # seconds since the run started, at the end of each trial
    overhead_s: float = 0.0  # the tuner's own time: search, cost model, bookkeeping
    measure_s: float = 0.0  # building and running candidates (for replay: what they cost when measured)
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)  # what one suite adds (e.g. config indices, model errors)

    @property
    def trials(self) -> int:
        return len(self.gflops)

    def best(self, budget: int | None = None) -> float:
        g = self.gflops[:budget] if budget else self.gflops
        return float(max(g)) if g else 0.0

    def curve(self) -> np.ndarray:
        return np.maximum.accumulate(np.asarray(self.gflops, dtype=float)) if self.gflops else np.zeros(0)

    def trials_to(self, target_gflops: float, budget: int | None = None) -> int | None:
        """Measurements until the best reaches ``target_gflops`` (None: not within ``budget``)."""
        return trials_to_reach(self.gflops, target_gflops, budget)

    def wall_to(self, target_gflops: float, budget: int | None = None) -> float | None:
        n = self.trials_to(target_gflops, budget)
        return None if n is None else float(self.wall[n - 1])

    def invalid_share(self, budget: int | None = None) -> float:
        g = self.gflops[:budget] if budget else self.gflops
        return float(np.mean(np.asarray(g) <= 0.0)) if g else 0.0

    def overhead_share(self) -> float:
        tot = self.overhead_s + self.measure_s
        return self.overhead_s / tot if tot > 0 else 0.0

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["gflops"] = [float(f"{x:.7g}") for x in self.gflops]  # 7 digits: ratios near 1 stay exact enough
        d["wall"] = [round(x, 3) for x in self.wall]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunTrace:
        return cls(**d)


def run_recipe(recipe: str, task: Task, measurer: Measurer, seed: int, budget: int, *, storage: Any = None,
               layer: str | None = None, mode: str = "live", batch_size: int = 16, options: dict[str, Any] | None = None,
               initial_configs: list[Any] | None = None, keep_configs: bool = False) -> tuple[RunTrace, Any, Any]:
    """One run of ``recipe`` on ``task`` through the tuning loop: (trace, the loop's summary, the strategy).

    The wall axis is real time, plus, in ``replay`` mode, what each replayed measurement cost when its
    table was made (``extra["charge_s"]`` of its result). ``keep_configs`` stores the measured configs'
    indices in ``trace.extra["configs"]``, in trial order."""
    from tensortune.storage.sqlite import SQLiteStorage
    from tensortune.tuners.loop import BatchEvent, Budget, Tuner
    from tensortune.tuners.recipes import create

    db = storage or SQLiteStorage(":memory:")
    trace = RunTrace(recipe, layer or task.name, seed, mode)
    charged = [0.0]
    configs: list[int] = []
    t0 = time.perf_counter()

    def record(ev: BatchEvent) -> None:
        own = ev.summary.search_seconds + ev.summary.storage_seconds
        now = time.perf_counter() - t0
        for c, r in zip(ev.configs, ev.results, strict=True):
            trace.gflops.append(task.flops / r.cost / 1e9 if r.ok and r.cost > 0 else 0.0)
            charged[0] += float(r.extra.get("charge_s", 0.0))
            trace.wall.append(own + charged[0] if mode == "replay" else now)
            if keep_configs:
                configs.append(task.space.index_of(c))

    strategy = create(recipe, task.space, seed, task=task, **(options or {}))
    s = Tuner(task, strategy, measurer, db, Budget(trials=budget), tuner_name=recipe, seed=seed,
              batch_size=batch_size, callbacks=[record], remeasure_best=False, initial_configs=initial_configs).run()
    trace.overhead_s = s.search_seconds + s.storage_seconds
    trace.measure_s = charged[0] if mode == "replay" else s.measure_seconds
    if keep_configs:
        trace.extra["configs"] = configs
    if s.trials < budget:
        trace.note = f"stopped after {s.trials}: {s.stop_reason}"
    return trace, s, strategy
