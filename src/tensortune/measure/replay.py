"""Replay measurer: answers from ground-truth tables and records databases, deterministically.

Every explorer, sampler and recipe can then run in seconds with real (previously measured) costs:
the conformance suite and ``tensortune bench`` use it. Besides the answer, each replayed measurement
carries what it cost when it was really measured (``charged_seconds``), so a replayed run also has a
realistic wall-time axis.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from typing import Any

from tensortune.core.values import ErrorKind, MeasureInput, MeasureResult


class ReplayMiss(LookupError):
    """A config that no replay source has measured."""


class ReplayMeasurer:
    """Answers a measurement from the first source that has the (task, config): ground-truth tables
    (keyed by template and workload, so any target string matches) and then a records database (its
    first trial of that config on that task and target).

    ``on_missing="error"`` raises :class:`ReplayMiss` for an unknown config (a table covers its whole
    space, so a miss is a bug in whoever proposed the config); ``"fail"`` answers it as a failed
    measurement (``ErrorKind.UNKNOWN``), which suits a partial database.
    """

    def __init__(self, tables: Iterable[Any] = (), storage: Any = None, on_missing: str = "error",
                 build_workers: int = 2) -> None:
        if on_missing not in ("error", "fail"):
            raise ValueError(f"on_missing must be 'error' or 'fail', not {on_missing!r}")
        self._tables = {gt.task.key: gt for gt in tables}
        self._db: dict[tuple[str, str, int], Any] = {}
        if storage is not None:
            for r in storage.records(kind="trial"):
                self._db.setdefault((r.task_key, r.target_key, r.config_index), r)
        if not self._tables and not self._db:
            raise ValueError("a replay measurer needs at least one table or a database with trial records")
        self.on_missing = on_missing
        self.build_workers = build_workers
        self.charged_seconds = 0.0  # what the replayed measurements took when they were made
        self.counts: Counter[tuple[str, int]] = Counter()  # (task key, config index) -> times asked

    def _one(self, inp: MeasureInput) -> MeasureResult:
        task = inp.task
        idx = task.space.index_of(inp.config)
        self.counts[(task.key, idx)] += 1
        gt = self._tables.get(task.key)
        if gt is not None:
            pos = gt.position(idx)
            if pos is not None:
                charge = float(gt.build_s[pos] / self.build_workers + gt.run_wall_s[pos])
                self.charged_seconds += charge
                err = ErrorKind(int(gt.error[pos]))
                extra = {"replayed": "table", "charge_s": charge}
                if err != ErrorKind.NONE:
                    return MeasureResult.failure(err, "replayed failure", build_seconds=float(gt.build_s[pos]),
                                                 extra=extra)
                cost = float(gt.cost[pos])
                return MeasureResult(costs=(cost,), build_seconds=float(gt.build_s[pos]), run_seconds=cost,
                                     extra=extra)
        rec = self._db.get((task.key, task.target_json, idx))
        if rec is not None:
            charge = rec.build_seconds / self.build_workers + float(rec.extra.get("run_wall_s", rec.run_seconds))
            self.charged_seconds += charge
            extra = {**rec.extra, "replayed": "database", "charge_s": charge}
            if not rec.ok:
                return MeasureResult.failure(rec.error, rec.message, build_seconds=rec.build_seconds, extra=extra)
            return MeasureResult(costs=tuple(rec.costs), build_seconds=rec.build_seconds,
                                 run_seconds=rec.run_seconds, extra=extra)
        msg = f"config {idx} of {task.key} has not been measured by any replay source"
        if self.on_missing == "error":
            raise ReplayMiss(msg)
        return MeasureResult.failure(ErrorKind.UNKNOWN, msg)

    def measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]:
        return [self._one(i) for i in inputs]

    def duplicates(self) -> dict[tuple[str, int], int]:
        """Configs asked for more than once."""
        return {k: n for k, n in self.counts.items() if n > 1}

    def close(self) -> None:
        pass

    def __enter__(self) -> ReplayMeasurer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
