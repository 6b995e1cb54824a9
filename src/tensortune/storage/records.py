"""The stored record of one measurement."""

from __future__ import annotations

import json
import statistics
from dataclasses import asdict, dataclass, field
from typing import Any

from tensortune.core.values import ErrorKind

KINDS = ("trial", "remeasure", "check", "duplicate")
REQUIRED = ("task_key", "target_key", "config", "config_index", "costs", "error")


@dataclass(frozen=True)
class TuningRecord:
    task_key: str
    target_key: str
    config: dict[str, Any]
    config_index: int
    costs: tuple[float, ...]
    error: ErrorKind = ErrorKind.NONE
    message: str = ""
    tuner: str = ""
    run_id: str = ""
    seed: int = 0
    # "trial" (counts toward a budget), "remeasure" (incumbent re-check) or "check" (the config failed a
    # correctness check outside the tuning loop, e.g. inside a built model)
    kind: str = "trial"
    flops: int = 0
    build_seconds: float = 0.0
    run_seconds: float = 0.0
    timestamp: float = 0.0
    task_name: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.error == ErrorKind.NONE and bool(self.costs)

    @property
    def cost(self) -> float:
        return statistics.median(self.costs) if self.ok else float("inf")

    @property
    def gflops(self) -> float:
        return self.flops / self.cost / 1e9 if self.ok and self.flops else 0.0

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["error"] = self.error.name
        d["costs"] = list(self.costs)
        d["config_index"] = str(self.config_index)
        return d

    @classmethod
    def from_json(cls, d: Any) -> TuningRecord:
        """Parse one exported record; ValueError with the reason if it is malformed."""
        if not isinstance(d, dict):
            raise ValueError("a record must be a JSON object")
        missing = [k for k in REQUIRED if k not in d]
        if missing:
            raise ValueError(f"missing field(s) {', '.join(missing)}")
        if not isinstance(d["config"], dict):
            raise ValueError("'config' must be an object of knob values")
        if not isinstance(d["costs"], list) or not all(isinstance(c, int | float) and c >= 0 for c in d["costs"]):
            raise ValueError("'costs' must be a list of non-negative numbers (seconds)")
        try:
            err = ErrorKind[d["error"]] if isinstance(d["error"], str) else ErrorKind(int(d["error"]))
        except (KeyError, ValueError):
            raise ValueError(f"unknown error kind {d['error']!r}") from None
        known = {f for f in cls.__dataclass_fields__}
        unknown = set(d) - known
        if unknown:
            raise ValueError(f"unknown field(s) {', '.join(sorted(unknown))}")
        kw = dict(d)
        kw["error"] = err
        kw["costs"] = tuple(float(c) for c in d["costs"])
        try:
            kw["config_index"] = int(d["config_index"])
        except (TypeError, ValueError):
            raise ValueError("'config_index' must be an integer") from None
        if kw["config_index"] < 0:
            raise ValueError("'config_index' must not be negative")
        for name in ("task_key", "target_key", "tuner", "run_id", "kind", "message", "task_name"):
            if name in kw and not isinstance(kw[name], str):
                raise ValueError(f"'{name}' must be a string")
        for name in ("seed", "flops"):
            if name in kw and (not isinstance(kw[name], int) or isinstance(kw[name], bool)):
                raise ValueError(f"'{name}' must be an integer")
        for name in ("build_seconds", "run_seconds", "timestamp"):
            if name in kw and (not isinstance(kw[name], int | float) or isinstance(kw[name], bool) or kw[name] < 0):
                raise ValueError(f"'{name}' must be a non-negative number")
        if "extra" in kw and not isinstance(kw["extra"], dict):
            raise ValueError("'extra' must be an object")
        if "|tir:" in kw["task_key"]:
            from tensortune.workloads.tir import check_task_key

            check_task_key(kw["task_key"].split("|tir:", 1)[1])
        if kw.get("kind", "trial") not in KINDS:
            raise ValueError(f"unknown record kind {kw['kind']!r}")
        return cls(**kw)

    def dumps(self) -> str:
        return json.dumps(self.to_json(), sort_keys=True)
