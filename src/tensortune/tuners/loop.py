"""The one tuning loop: budget, batching, early stopping, resume, callbacks, progress, storage.

Algorithms are ask/tell state machines (``SearchStrategy``); they never own the loop. Every measured
batch is committed to storage before the next batch is proposed, so a killed run loses at most the
batch in flight, and running the same command again resumes: the run's records are replayed through
``tell`` and no stored config is measured again.

A run holds its lease while it tunes (a second process on the same run is refused, or waits), and
its search space and measurement protocol are checked against those it was stored with.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tensortune.core.values import ErrorKind, MeasureInput, Measurer, MeasureResult, Task, measurer_protocol
from tensortune.space import Config
from tensortune.storage.records import TuningRecord
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.strategies.base import SearchStrategy
from tensortune.tuners.guard import MeasureGuard


@dataclass(frozen=True)
class Budget:
    trials: int | None = None  # measurements (trials) for this run, counting resumed ones
    seconds: float | None = None  # wall time of this session
    early_stopping: int | None = None  # stop after this many trials without improvement

    def __post_init__(self) -> None:
        if self.trials is None and self.seconds is None:
            raise ValueError("a budget needs a number of measurements or a time limit")
        if self.trials is not None and self.trials < 1:
            raise ValueError(f"the measurement budget must be at least 1, not {self.trials}")
        if self.seconds is not None and self.seconds <= 0:
            raise ValueError(f"the time budget must be positive, not {self.seconds}")
        if self.early_stopping is not None and self.early_stopping < 1:
            raise ValueError("early stopping needs a positive number of trials")


@dataclass
class TuneSummary:
    task: Task
    tuner: str
    run_id: str
    seed: int
    trials: int = 0
    resumed: int = 0
    errors: int = 0
    best_cost: float = float("inf")
    best_config: dict | None = None
    best_remeasured: bool = False
    curve: list[float] = field(default_factory=list)  # best GFLOP/s after each trial
    wall_seconds: float = 0.0
    search_seconds: float = 0.0
    measure_seconds: float = 0.0
    storage_seconds: float = 0.0
    search_steps: list[int] = field(default_factory=list)  # explorer steps per round
    model_queries: list[int] = field(default_factory=list)  # cost-model queries per round
    plan_lengths: list[int] = field(default_factory=list)  # configs chosen for measurement per round
    batch_sizes: list[int] = field(default_factory=list)
    stop_reason: str = ""

    @property
    def best_gflops(self) -> float:
        return self.task.flops / self.best_cost / 1e9 if self.best_cost < float("inf") else 0.0


@dataclass(frozen=True)
class BatchEvent:
    summary: TuneSummary
    configs: list[Config]
    results: list[MeasureResult]


Callback = Callable[[BatchEvent], None]


def make_run_id(task: Task, tuner: str, seed: int) -> str:
    h = hashlib.sha1(f"{task.key}|{task.target_json}".encode()).hexdigest()[:10]
    return f"{tuner}-s{seed}-{h}"


def run_fingerprint(task: Task, protocol: dict[str, Any]) -> dict[str, str]:
    """What a run's records must share: the space and the measurement protocol (hashed)."""
    return {"space": task.space.fingerprint(),
            "protocol": hashlib.sha256(json.dumps(protocol, sort_keys=True).encode()).hexdigest()[:16]}


def measure_record(task: Task, cfg: Config, r: MeasureResult, *, tuner: str, run_id: str, seed: int,
                   protocol: dict[str, Any], fingerprint: dict[str, str], kind: str = "trial",
                   extra: dict[str, Any] | None = None) -> TuningRecord:
    """The stored record of one measurement of ``cfg`` in run ``run_id`` (its machine, from the
    measurer's protocol, travels with it: transfer treats another CPU's records as a prior);
    ``fingerprint`` is the run's :func:`run_fingerprint`, computed once per run, not per record."""
    sp = task.space
    return TuningRecord(
        task_key=task.key, task_name=task.name, target_key=task.target_json,
        config=sp.to_json(cfg), config_index=sp.index_of(cfg), costs=r.costs, error=r.error, message=r.message,
        tuner=tuner, run_id=run_id, seed=seed, kind=kind, flops=task.flops,
        build_seconds=r.build_seconds, run_seconds=r.run_seconds, timestamp=r.timestamp,
        extra={**r.extra, **(extra or {}), "fingerprint": fingerprint,
               **({"device": protocol["device"]} if "device" in protocol else {})})


class Tuner:
    def __init__(self, task: Task, strategy: SearchStrategy, measurer: Measurer, storage: SQLiteStorage,
                 budget: Budget, *, tuner_name: str | None = None, seed: int = 0, run_id: str | None = None,
                 batch_size: int = 16, callbacks: list[Callback] | None = None, progress: bool = False,
                 remeasure_best: bool = True, initial_configs: list[Config] | None = None,
                 wait: bool | float = False) -> None:
        if batch_size < 1:
            raise ValueError("batch size must be at least 1")
        self.task = task
        self.strategy = strategy
        self.measurer = measurer
        self.storage = storage
        self.budget = budget
        self.tuner_name = tuner_name or strategy.name
        self.seed = seed
        self.run_id = run_id or make_run_id(task, self.tuner_name, seed)
        self.batch_size = batch_size
        self.callbacks = list(callbacks or [])
        self.progress = progress
        self.remeasure_best = remeasure_best
        # measured first, before the strategy is asked (a warm start, like Optuna's enqueue_trial);
        # skipped when already measured, e.g. on resume
        self.initial_configs = list(initial_configs or [])
        self.wait = wait  # for the run's lease, when another process holds it: False, True or seconds
        self.protocol = measurer_protocol(measurer)
        self.fingerprint = run_fingerprint(task, self.protocol)

    def _throughput(self, r: MeasureResult | TuningRecord) -> float:
        return self.task.flops / r.cost if r.ok and r.cost > 0 else 0.0

    def _record(self, cfg: Config, r: MeasureResult, kind: str = "trial") -> TuningRecord:
        return measure_record(self.task, cfg, r, tuner=self.tuner_name, run_id=self.run_id, seed=self.seed,
                              protocol=self.protocol, fingerprint=self.fingerprint, kind=kind)

    def _restore(self, s: TuneSummary) -> tuple[set[int], int]:
        """Replay this run's stored trials; return measured config indices and trials since the best."""
        sp = self.task.space
        prior = self.storage.records(self.task.key, self.task.target_json, self.run_id, kind="trial")
        measured: set[int] = set()
        cfgs, ys, extras = [], [], []
        since_best = 0
        for rec in prior:
            measured.add(rec.config_index)
            cfgs.append(sp.config(rec.config_index))
            ys.append(self._throughput(rec))
            extras.append(rec.extra)
            s.trials += 1
            s.errors += int(not rec.ok)
            if rec.ok and rec.cost < s.best_cost:
                s.best_cost, s.best_config, since_best = rec.cost, rec.config, 0
            else:
                since_best += 1
            s.curve.append(s.best_gflops)
        s.resumed = len(prior)
        saved = self.storage.load_checkpoint(self.run_id, "strategy")
        if saved is not None:
            self.strategy.load_state_bytes(saved)
        if prior:
            t0 = time.perf_counter()
            self.strategy.tell_extra(cfgs, extras)
            self.strategy.tell(cfgs, ys)
            self.strategy.restored(len(prior))
            s.search_seconds += time.perf_counter() - t0
        return measured, since_best

    def run(self) -> TuneSummary:
        with self.storage.lease(self.run_id, self.wait):
            self.storage.check_run(self.run_id, self.fingerprint["space"], self.protocol)
            return self._run()

    def _run(self) -> TuneSummary:
        s = TuneSummary(self.task, self.tuner_name, self.run_id, self.seed)
        start = time.perf_counter()
        measured, since_best = self._restore(s)
        guard = MeasureGuard(self.task.space, measured)
        bar = _Progress(self, s) if self.progress else None
        try:
            while True:
                left = None if self.budget.trials is None else self.budget.trials - s.trials
                if left is not None and left <= 0:
                    s.stop_reason = "measurement budget spent"
                    break
                if self.budget.seconds is not None and time.perf_counter() - start >= self.budget.seconds:
                    s.stop_reason = "time budget spent"
                    break
                if self.budget.early_stopping is not None and since_best >= self.budget.early_stopping:
                    s.stop_reason = f"no improvement in {self.budget.early_stopping} trials"
                    break
                n = self.batch_size if left is None else min(self.batch_size, left)
                t0 = time.perf_counter()
                queued = [c for c in self.initial_configs if not guard.seen(c)][:n]
                self.initial_configs = [c for c in self.initial_configs if c not in queued]
                proposed = queued if queued else self.strategy.ask(n)
                s.search_seconds += time.perf_counter() - t0
                sp = self.task.space
                # the loop's guarantee: never measure a config twice or an invalid one
                batch: list[Config] = guard.admit(proposed, left)
                if not batch:
                    s.stop_reason = "search space exhausted"
                    break
                t0 = time.perf_counter()
                results = self.measurer.measure([MeasureInput(self.task, c) for c in batch])
                s.measure_seconds += time.perf_counter() - t0
                t0 = time.perf_counter()
                self.storage.add([self._record(c, r) for c, r in zip(batch, results, strict=True)])
                s.storage_seconds += time.perf_counter() - t0
                for c, r in zip(batch, results, strict=True):
                    s.trials += 1
                    s.errors += int(not r.ok)
                    if r.ok and r.cost < s.best_cost:
                        s.best_cost, s.best_config, since_best = r.cost, sp.to_json(c), 0
                    else:
                        since_best += 1
                    s.curve.append(s.best_gflops)
                s.batch_sizes.append(len(batch))
                t0 = time.perf_counter()
                self.strategy.tell_extra(batch, [r.extra for r in results])
                self.strategy.tell(batch, [self._throughput(r) for r in results])
                s.search_seconds += time.perf_counter() - t0
                state = self.strategy.state_bytes()
                if state is not None:
                    self.storage.save_checkpoint(self.run_id, "strategy", state)
                for cb in self.callbacks:
                    cb(BatchEvent(s, batch, results))
                if bar:
                    bar.update()
            if self.remeasure_best and s.best_config is not None and not self._stored_remeasure(s):
                self._remeasure(s)
        finally:
            if bar:
                bar.close()
        s.search_steps = list(self.strategy.search_steps)
        s.model_queries = list(self.strategy.model_queries)
        s.plan_lengths = list(self.strategy.plan_lengths)
        s.wall_seconds = time.perf_counter() - start
        return s

    def _stored_remeasure(self, s: TuneSummary) -> bool:
        """A rerun that measured nothing new (a finished run resumed) takes the run's stored re-measurement of its
        incumbent, the latest, instead of measuring it once more: rerunning a finished command changes nothing
        (before stop 104 each rerun added a ``remeasure`` record and moved the reported best). False where this call
        measured trials or the run holds no ok re-measurement of that config."""
        assert s.best_config is not None  # the caller's condition
        if s.trials != s.resumed:
            return False
        idx = self.task.space.index_of(self.task.space.from_json(s.best_config))
        again = [r for r in self.storage.records(self.task.key, self.task.target_json, self.run_id, kind="remeasure")
                 if r.ok and r.config_index == idx]
        if not again:
            return False
        s.best_cost = again[-1].cost
        s.best_remeasured = True
        return True

    def _remeasure(self, s: TuneSummary) -> None:
        """Measure the incumbent again so the reported figure is not a lucky outlier."""
        assert s.best_config is not None
        cfg = self.task.space.from_json(s.best_config)
        t0 = time.perf_counter()
        r = self.measurer.measure([MeasureInput(self.task, cfg)])[0]
        s.measure_seconds += time.perf_counter() - t0
        self.storage.add([self._record(cfg, r, kind="remeasure")])
        if r.ok:
            s.best_cost = r.cost
            s.best_remeasured = True
        else:
            s.stop_reason += f"; re-measuring the best config failed ({r.error.name})"


class _Progress:
    """A rich progress bar: trials, best GFLOP/s, errors, ETA."""

    def __init__(self, tuner: Tuner, s: TuneSummary) -> None:
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
            TimeRemainingColumn,
        )

        self.s = s
        total = tuner.budget.trials
        self.p = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("best {task.fields[best]:.1f} GFLOP/s"), TextColumn("errors {task.fields[errors]}"),
                          TimeElapsedColumn(), TextColumn("ETA"), TimeRemainingColumn(), transient=False)
        self.p.start()
        self.id = self.p.add_task(f"{tuner.tuner_name} {tuner.task.name}", total=total, completed=s.trials,
                                  best=s.best_gflops, errors=s.errors)

    def update(self) -> None:
        self.p.update(self.id, completed=self.s.trials, best=self.s.best_gflops, errors=self.s.errors)

    def close(self) -> None:
        self.update()
        self.p.stop()


__all__ = ["BatchEvent", "Budget", "Callback", "ErrorKind", "TuneSummary", "Tuner", "make_run_id"]
