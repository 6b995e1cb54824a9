"""Confirm each task's best configs before a model is built: measure a task's top configs again in
interleaved rounds and rank them by the median of all those repeats.

A task's best trial is the minimum of many noisy measurements, so it is biased toward a lucky one: on
a 2-vCPU VM whose speed drifts by 10-40% over minutes, a config measured once in a fast moment beats
a faster config measured in a slow one (stop 38: ResNet-18's stride-2 3x3 conv of layer 3 was tuned at
838 us and ran at 1,040 us alone and 1,184 us inside the model, slower than its runner-up's figures).
Measuring the top ``top`` configs of the task one after the other, ``rounds`` times in rotated order,
exposes them to the same drift, and their medians rank them fairly.

The re-measurements are stored as ``remeasure`` records of the task's run (the storage ranks a
re-measured config by its latest re-measurement, so the build, the profile and a resume all take the
confirmed figure). By default, like the tuning loop's own re-check of its incumbent, they do not count toward
the measurement budget, and the run reports how many there were and how long they took. Given a ``limit``
(a whole-model run's ``confirm_share`` of its budget, kept back from the search), they do: the tasks are
confirmed in the caller's order (heaviest first) while the limit holds a task's ``top x rounds``, and a
task's later passes only while they fit."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from tensortune.core.values import MeasureInput, Measurer, MeasureResult, Task, measurer_protocol
from tensortune.tuners.loop import measure_record, run_fingerprint

MAX_PASSES = 3  # a confirmed config that falls behind an unconfirmed one brings that one in: at most this often


@dataclass
class ConfirmSummary:
    """What the confirmation did over a model's tasks."""

    tasks: int = 0  # tasks whose top configs were measured again
    measurements: int = 0
    seconds: float = 0.0
    changed: list[str] = field(default_factory=list)  # tasks whose best config is now another one
    skipped: int = 0  # tasks already confirmed (a resumed run), or with fewer than two good configs
    limit: int | None = None  # the measurements it could spend (in the budget), None: outside the budget
    left_out: int = 0  # tasks not confirmed because the limit could not hold their measurements


def confirm_task(task: Task, run_id: str, *, measurer: Measurer, storage: Any, tuner: str, seed: int,
                 top: int = 3, rounds: int = 3, limit: int | None = None) -> tuple[int, bool] | None:
    """Measure the ``top`` best configs of ``task``'s run again, ``rounds`` interleaved rounds each,
    and store each config's repeats as one ``remeasure`` record. Returns (measurements, whether the
    best config changed), or None when there is nothing to confirm: fewer than two good configs, or
    its top configs already confirmed (a resumed run). With ``limit``, at most that many measurements:
    a pass that would exceed it is not started."""
    if top < 2 or rounds < 1:
        raise ValueError(f"confirming needs at least 2 configs and 1 round (got top={top}, rounds={rounds})")
    best = storage.best(task.key, task.target_json, k=top, run_id=run_id)
    if len(best) < 2:
        return None
    confirmed = {r.config_index for r in storage.records(task.key, task.target_json, run_id, kind="remeasure")}
    if all(r.config_index in confirmed for r in best):
        return None
    protocol = measurer_protocol(measurer)
    fingerprint = run_fingerprint(task, protocol)
    storage.check_run(run_id, fingerprint["space"], protocol)
    first = best[0].config_index
    n = 0
    done: set[int] = set()
    for p in range(MAX_PASSES):
        cfgs = [task.space.from_json(r.config) for r in best]
        if limit is not None and n + len(cfgs) * rounds > limit:
            break
        results = _interleaved(task, cfgs, measurer, rounds, start=p)
        n += len(cfgs) * rounds
        storage.add([measure_record(task, c, res, tuner=tuner, run_id=run_id, seed=seed, protocol=protocol,
                                    fingerprint=fingerprint, kind="remeasure", extra={"confirm_rounds": rounds})
                     for c, res in zip(cfgs, results, strict=True)])
        done |= {r.config_index for r in best}
        best = storage.best(task.key, task.target_json, k=top, run_id=run_id)
        if all(r.config_index in done for r in best):  # no unconfirmed config has overtaken a confirmed one
            break
    return n, bool(best) and best[0].config_index != first


def _interleaved(task: Task, cfgs: Sequence[Any], measurer: Measurer, rounds: int, start: int = 0) -> list[MeasureResult]:
    """Each config measured ``rounds`` times, one after the other in each round (the order rotated
    each round); a config's repeats of every round pooled into one result. A config that fails in any
    round keeps that failure (it is not ranked)."""
    pooled: list[list[float]] = [[] for _ in cfgs]
    failed: list[MeasureResult | None] = [None] * len(cfgs)
    last: list[MeasureResult | None] = [None] * len(cfgs)
    for k in range(rounds):
        order = [(i + k + start) % len(cfgs) for i in range(len(cfgs))]
        for i, res in zip(order, measurer.measure([MeasureInput(task, cfgs[i]) for i in order]), strict=True):
            last[i] = res
            if res.ok:
                pooled[i].extend(res.costs)
            elif failed[i] is None:
                failed[i] = res
    out = []
    for i in range(len(cfgs)):
        res = failed[i] or last[i]
        assert res is not None
        out.append(res if failed[i] else MeasureResult(tuple(pooled[i]), build_seconds=res.build_seconds,
                                                         run_seconds=res.run_seconds, extra=res.extra))
    return out


def confirm_tasks(jobs: Sequence[tuple[str, Task, str]], *, measurer: Measurer, storage: Any, tuner: str, seed: int,
                  top: int = 3, rounds: int = 3, on_task: Callable[[str], None] | None = None,
                  limit: int | None = None) -> ConfirmSummary:
    """:func:`confirm_task` over (name, task, run id) triples, in their order; with ``limit``, at most that many
    measurements in all (a task whose first pass no longer fits is left out)."""
    s = ConfirmSummary(limit=limit)
    t0 = time.perf_counter()
    for name, task, run_id in jobs:
        left = None if limit is None else limit - s.measurements
        if left is not None and left < top * rounds:
            s.left_out += 1
            continue
        got = confirm_task(task, run_id, measurer=measurer, storage=storage, tuner=tuner, seed=seed, top=top,
                           rounds=rounds, limit=left)
        if got is None:
            s.skipped += 1
            continue
        s.tasks += 1
        s.measurements += got[0]
        if got[1]:
            s.changed.append(name)
        if on_task:
            on_task(name)
    s.seconds = time.perf_counter() - t0
    return s
