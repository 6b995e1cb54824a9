"""A tuning run as the benchmark sees it, whoever ran it: per trial, GFLOP/s (0 when the measurement
failed) and the wall clock; plus how much of the wall time was the tuner's own work."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tensortune.core.stats import trials_to_reach


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
        d["gflops"] = [round(x, 3) for x in self.gflops]
        d["wall"] = [round(x, 3) for x in self.wall]
        return d

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> RunTrace:
        return cls(**d)
