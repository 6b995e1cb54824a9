"""Whole-model tuning: extract the tasks, share one budget among them (round-robin or Ansor's
gradient allocator), tune each through the ordinary tuning loop, and collect the best schedules."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from tensortune.core.values import ErrorKind, Task
from tensortune.models.allocation import TaskProgress, first_round_size, make_allocator
from tensortune.models.build import TunedSchedule
from tensortune.models.confirm import ConfirmSummary, confirm_tasks
from tensortune.models.importer import ImportedModel
from tensortune.models.tasks import ModelTask, extract_tasks, save_task
from tensortune.templates import make_task
from tensortune.workloads.tir import TirWorkload, task_dir

OURS = "conv2d_nchw_fused.llvm"
CONV_SPACES = {"reduced": "conv2d_nchw_fused.llvm-small", "full": OURS, "tails": OURS}  # --conv-space
BLOCKED = "conv2d_nchwc_fused.llvm"
BLOCKED_SPACES = {"reduced": "conv2d_nchwc_fused.llvm-small", "full": BLOCKED,
                  "tails": "conv2d_nchwc_fused.llvm-tails"}
MS_SPACE = "ms-space.llvm"
COPY = "copy.llvm"  # layout transforms and other single-block data movement
POOL = "max_pool.llvm"
DENSE = "dense_fused.llvm"  # a Linear's matmul + bias [+ relu] (until stop 78 in the MetaSchedule space)
WINOGRAD = "conv2d_winograd_fused.llvm"
TWIN_CONFIG = ", config of its twin"  # how a task tuned by a twin's config says so (``_share_twins``)
TWIN_TIME = ", time measured on its twin"  # its own config, shown with the faster time a twin measured
TRANSFERRED = ", transferred (not measured)"  # a task the budget never reached (``_transfer_unmeasured``)


@dataclass
class TaskRow:
    """One line of the per-task table."""

    name: str
    kind: str
    weight: int
    flops: float
    how: str  # "tensortune template", "MetaSchedule space", "TVM default"
    template: str | None
    task: Task | None
    trials: int = 0
    best_s: float = float("inf")
    best_values: dict[str, Any] | None = None
    errors: int = 0
    seconds: float = 0.0
    # where ``seconds`` went (stop 104): the Tuner's measuring and search (the strategy's ask and tell: cost-model fits
    # and the explorer), and reading the transfer sources of the database and corpus before each round
    measure_seconds: float = 0.0
    search_seconds: float = 0.0
    prior_seconds: float = 0.0
    transfer_records: int = 0  # records of other tasks its last round's cost model learned from
    corpus_records: int = 0  # of those, records of the shipped corpus

    @property
    def gflops(self) -> float:
        return self.flops / self.best_s / 1e9 if self.best_s < float("inf") and self.best_s > 0 else 0.0


@dataclass
class ModelTuneResult:
    rows: list[TaskRow]
    fused: Any
    tasks: list[ModelTask]
    wall_seconds: float
    trials: int
    allocation: list[int] = field(default_factory=list)  # task row index per round
    stop_reason: str = ""  # why tuning stopped before the budget was spent ("" when it was spent)
    confirm: ConfirmSummary | None = None  # the top configs measured again before the build (None: not done)

    def time_split(self) -> dict[str, float]:
        """Seconds of ``wall_seconds`` spent measuring, searching and reading transfer sources, summed over the
        tasks, and the rest (extracting the tasks, storing, allocating, confirming)."""
        parts = {"measure_s": sum(r.measure_seconds for r in self.rows),
                 "search_s": sum(r.search_seconds for r in self.rows),
                 "prior_s": sum(r.prior_seconds for r in self.rows)}
        parts["rest_s"] = max(0.0, self.wall_seconds - sum(parts.values()))
        return {k: round(v, 3) for k, v in parts.items()}

    def schedules(self) -> list[TunedSchedule]:
        return [TunedSchedule(r.task.workload.mod, r.template, r.best_values, r.best_s,  # type: ignore[union-attr]
                              r.task.workload.task_key)  # type: ignore[union-attr]
                for r in self.rows if r.task is not None and r.best_values is not None]


def plan_tasks(model: ImportedModel, target: dict[str, Any], use_templates: bool = True,
               conv_space: str = "full") -> tuple[Any, list[ModelTask], list[TaskRow]]:
    """Extract the tasks and choose how each is tuned: our template where one covers it, else
    MetaSchedule's design space (our explorers on its decisions), else TVM's default lowering (a
    function with nothing to decide, such as a reshape)."""
    import tvm

    from tensortune.templates import get_template

    fused, tasks = extract_tasks(model, tvm.target.Target(target))
    rows = []
    for t in tasks:
        save_task(t, task_dir())
        wl = TirWorkload(t.key)
        row = TaskRow(t.name, t.kind, t.weight, t.flops, "TVM default", None, None)
        ours = [n for n in (CONV_SPACES[conv_space], OURS, BLOCKED_SPACES[conv_space], BLOCKED, WINOGRAD, COPY, POOL,
                            DENSE) if use_templates and get_template(n).supports(wl)]
        if ours:
            row.template = ours[0]
            row.how = ("tensortune template" + (" (blocked)" if ours[0].startswith("conv2d_nchwc") else "")
                       + (" (data movement)" if ours[0] == COPY else "")
                       + (" (Winograd)" if ours[0] == WINOGRAD else "")
                       + (" (dense)" if ours[0] == DENSE else "")
                       + (" (reduced space)" if ours[0].endswith("-small") else "")
                       + (" (column tails)" if ours[0].endswith("-tails") else ""))
        else:
            space = get_template(MS_SPACE).space_for(wl, target)
            if space.size > 1:
                row.how, row.template = "MetaSchedule space", MS_SPACE
        if row.template:
            row.task = make_task(wl, row.template, target, t.name)
        rows.append(row)
    return fused, tasks, rows


def tune_model(model: ImportedModel, target: dict[str, Any], *, measurer: Any, storage: Any, recipe: str = "autotvm",
               trials: int = 1000, allocator: str = "gradient", round_size: int = 16, seed: int = 0,
               batch_size: int = 16, use_templates: bool = True, conv_space: str = "full",
               on_round: Callable[[int, TaskRow, int], None] | None = None, time_limit: float | None = None,
               wait: bool | float = False, transfer: bool = True, corpus: Any = None, confirm_top: int = 0,
               confirm_rounds: int = 3, on_confirm: Callable[[str], None] | None = None,
               confirm_share: float = 0.0) -> ModelTuneResult:
    """Tune a whole model's tasks with one shared budget of ``trials`` measurements (and at most
    ``time_limit`` seconds of tuning). The model run holds a lease (a second process on it is refused,
    or waits with ``wait``); each task's rounds hold that task's run lease as well. With ``transfer``
    (model-based recipes), every round's cost model also learns from the other tasks' records in the
    database (those tuned earlier in this run included), and a task's first round measures the best
    configs of the most similar tuned tasks first. ``corpus`` (the shipped pretrained records, see
    :mod:`tensortune.transfer.corpus`) joins the prior with a weight that fades as the database fills.
    With ``confirm_top`` >= 2, once the budget is spent each task's ``confirm_top`` best configs are
    measured again in ``confirm_rounds`` interleaved rounds and ranked by those medians
    (:mod:`tensortune.models.confirm`; skipped when a time limit was reached), outside the budget; with
    ``confirm_share`` > 0 inside it: that share of ``trials`` is kept back from the search (with whatever the
    search leaves unspent) and the tasks are confirmed heaviest first (calls x best time) while it lasts."""
    import hashlib

    if not 0.0 <= confirm_share < 1.0 or (confirm_share and confirm_top < 2):
        raise ValueError(f"confirm_share must be in [0, 1) and needs confirm_top >= 2 (got {confirm_share}, "
                         f"{confirm_top})")

    start = time.perf_counter()
    fused, tasks, rows = plan_tasks(model, target, use_templates, conv_space)
    tuned = [r for r in rows if r.task is not None]
    runs = sorted(_run_id(r, recipe, seed) for r in tuned)
    model_run = f"model-{recipe}-s{seed}-" + hashlib.sha1("|".join(runs).encode()).hexdigest()[:10]
    with storage.lease(model_run, wait):
        return _tune_tasks(rows, tuned, fused, tasks, start, measurer=measurer, storage=storage, recipe=recipe,
                           trials=trials, allocator=allocator, round_size=round_size, seed=seed, batch_size=batch_size,
                           on_round=on_round, time_limit=time_limit, transfer=transfer, corpus=corpus,
                           confirm_top=confirm_top, confirm_rounds=confirm_rounds, on_confirm=on_confirm,
                           confirm_share=confirm_share)


def _confirm_spent(tuned: list[TaskRow], storage: Any, recipe: str, seed: int) -> int:
    """Measurements an earlier pass of this run spent confirming (a resumed run): each ``remeasure`` record of
    the confirmation pools its ``confirm_rounds`` measurements."""
    n = 0
    for r in tuned:
        assert r.task is not None
        for rec in storage.records(r.task.key, r.task.target_json, _run_id(r, recipe, seed), kind="remeasure"):
            n += int((rec.extra or {}).get("confirm_rounds", 0))
    return n


def _tune_tasks(rows: list[TaskRow], tuned: list[TaskRow], fused: Any, tasks: list[ModelTask], start: float, *,
                measurer: Any, storage: Any, recipe: str, trials: int, allocator: str, round_size: int, seed: int,
                batch_size: int, on_round: Callable[[int, TaskRow, int], None] | None,
                time_limit: float | None, transfer: bool = True, corpus: Any = None, confirm_top: int = 0,
                confirm_rounds: int = 3, on_confirm: Callable[[str], None] | None = None,
                confirm_share: float = 0.0) -> ModelTuneResult:
    from tensortune.transfer import TransferPrior
    from tensortune.tuners import recipes
    from tensortune.tuners.loop import Budget, Tuner

    transfer = transfer and recipes.learns_from_other_tasks(recipe)
    cache: dict = {}  # sources whose records did not change since the last round are not re-read

    arg_bytes = {t.name: t.arg_bytes for t in tasks}  # rows are named after their tasks
    # twins (the same operator shape and template, differing only in their fused epilogue) are tuned as one task,
    # as AutoTVM tunes one task per conv shape: the group's heaviest measures for all, weighing their calls
    # together, and ``_share_twins`` gives the others its configs at the end (``TWIN_GROUPS``)
    units, calls = _tuning_units(tuned)
    progress = [TaskProgress(calls[k], r.flops, r.kind, r.task.space.size, arg_bytes=arg_bytes.get(r.name, 0))
                for k, r in enumerate(units)]
    alloc = make_allocator(allocator, seed)
    spent, allocation, stop = 0, [], ""
    # with confirm_share, the search stops short of the budget; the confirmation spends the rest (``confirmed``)
    search = trials - int(trials * confirm_share)  # tune_model refuses a share without confirm_top
    tuning_start = time.perf_counter()  # the time limit counts tuning, not task extraction
    # resume: trials of an interrupted run are already in storage (a twin's own, from before stop 80, count spent)
    unit_of = {id(r): k for k, r in enumerate(units)}
    for r in tuned:
        assert r.task is not None
        done = storage.records(r.task.key, r.task.target_json, _run_id(r, recipe, seed), kind="trial")
        spent += len(done)
        if done and id(r) in unit_of:
            p = progress[unit_of[id(r)]]
            p.trials = r.trials = len(done)
            ok = [x.cost for x in done if x.ok]
            p.history.append((p.trials, min(ok) if ok else float("inf")))
    while spent < search:
        if time_limit is not None and time.perf_counter() - tuning_start >= time_limit:
            stop = f"time limit of {time_limit:g} s reached after {spent} of {trials} measurements"
            break
        i = alloc.pick(progress)
        if i is None:
            break
        r, p = units[i], progress[i]
        assert r.task is not None
        n = min(round_size, search - spent, p.space_size - p.trials)
        t_prior = time.perf_counter()
        prior = TransferPrior.from_storage(storage, r.task, seed, cache, corpus) if transfer else None
        r.prior_seconds += time.perf_counter() - t_prior
        # the sources fade on the round, as before stop 55 (``transfer.prior.FADE``'s 64 is the layer recipes'):
        # ResNet-18 at 200 with the 64 measured 9.73, 10.31 and 9.09 ms in three runs (seeds 0-2) against 9.14 for
        # a run on the round, in one timing set (results/transfer/models-rocketlake-s55)
        # no incumbent probes (``tuners.recipes.TRANSFER_PROBES``): measured for one task at a time (held-out layers),
        # but VGG-16's 200 with ran 2.6% behind the code without them (1.026, 0.998-1.056, seeds 0-2 in one set;
        # seed 0 shown slower) and, unlike it, shown slower than the 1,000 without (1.045), while ResNet-18's was level
        # with it (0.984, seeds 0-1); stop 87, results/transfer/znver5-s87. Mixed at best: the runs stay as measured.
        # No random plans while the prior is discredited (``tuners.recipes.TRANSFER_EXPLORE_FLOOR``): measured on
        # held-out layers only; a whole-model run's budget goes where the latency is, and was not measured with them.
        strategy = recipes.create(recipe, r.task.space, seed, plan_size=round_size, task=r.task, transfer=prior or None,
                                  transfer_fade=round_size, probes=False, explore=False)
        t0 = time.perf_counter()
        first = prior.initial_configs(min(8, n)) if prior and p.trials == 0 else None
        if p.trials == 0:  # a first round: the task's share of the budget by calls x FLOPs, keeping a quarter
            # round for each task still without one, so a small budget reaches every task (a task without a
            # measurement runs TVM's default lowering, 50x slower) and goes where the latency is
            n = first_round_size(progress, i, search, search - spent, round_size, bool(first))
            if first:
                first = first[:n]
        s = Tuner(r.task, strategy, measurer, storage, Budget(trials=p.trials + n), tuner_name=recipe, seed=seed,
                  run_id=_run_id(r, recipe, seed), batch_size=batch_size, remeasure_best=False,
                  initial_configs=first).run()
        r.transfer_records = prior.n_records if prior else 0
        r.corpus_records = prior.n_corpus_records if prior else 0
        r.seconds += time.perf_counter() - t0
        r.measure_seconds += s.measure_seconds
        r.search_seconds += s.search_seconds
        got = s.trials - p.trials
        spent += got
        p.trials = r.trials = s.trials
        r.errors = s.errors
        if s.best_cost < r.best_s:
            r.best_s, r.best_values = s.best_cost, s.best_config
        p.history.append((p.trials, r.best_s))
        allocation.append(rows.index(r))
        if on_round:
            on_round(len(allocation), r, spent)
        if got == 0:
            p.space_size = p.trials  # nothing left to propose: exhausted
    confirmed = None
    if confirm_top and not stop.startswith("time limit"):
        jobs = [r for r in tuned if r.task and r.trials]
        limit = None
        if confirm_share:  # in the budget: the heaviest tasks first, with what the search left of it
            weight = {id(u): calls[k] for k, u in enumerate(units)}
            jobs.sort(key=lambda r: -weight.get(id(r), r.weight) * (r.best_s if r.best_s < float("inf") else 0.0))
            limit = max(0, trials - spent - _confirm_spent(tuned, storage, recipe, seed))
        confirmed = confirm_tasks([(r.name, r.task, _run_id(r, recipe, seed)) for r in jobs],
                                  measurer=measurer, storage=storage, tuner=recipe, seed=seed, top=confirm_top,
                                  rounds=confirm_rounds, on_task=on_confirm, limit=limit)
    for r in tuned:  # the stored best is the truth: resumed records count, wrong-answer configs do not
        r.best_s, r.best_values = float("inf"), None
    _load_best(tuned, storage, recipe, seed)
    if transfer:
        _transfer_unmeasured(tuned, storage, recipe, seed, cache, corpus)
    return ModelTuneResult(rows, fused, tasks, time.perf_counter() - start, spent, allocation, stop, confirmed)


def _transfer_unmeasured(rows: list[TaskRow], storage: Any, recipe: str, seed: int, cache: dict,
                         corpus: Any = None) -> None:
    """A task the budget never reached gets the best config of the most similar tuned task, mapped onto
    its space (schedule transfer without a measurement) instead of TVM's default lowering; the build
    checks it on real tensors like every tuned kernel (a wrong one is stored, and the next candidate is
    taken at a later build)."""
    from tensortune.transfer import TransferPrior

    for r in rows:
        if r.best_values is not None or r.trials or r.task is None:
            continue
        sp = r.task.space
        wrong = _wrong_configs(r, storage, recipe, seed)
        first = [c for c in TransferPrior.from_storage(storage, r.task, seed, cache, corpus).initial_configs(8)
                 if sp.index_of(c) not in wrong]
        if first:
            r.best_values = sp.to_json(first[0])
            r.how += TRANSFERRED


def _load_best(rows: list[TaskRow], storage: Any, recipe: str, seed: int) -> None:
    for r in rows:
        assert r.task is not None
        run = _run_id(r, recipe, seed)
        top = storage.best(r.task.key, r.task.target_json, k=1, run_id=run)
        if top and top[0].ok and top[0].cost < r.best_s:
            r.best_s, r.best_values = top[0].cost, top[0].config
        if not r.trials:
            r.trials = len(storage.records(r.task.key, r.task.target_json, run, kind="trial"))
    _share_twins(rows, storage, recipe, seed)


# TWIN_GROUPS: until stop 80 each twin was tuned on its own, and measured many of the same configs: the first
# design of a twin is its tuned twin's best configs, and without transfer the same seed proposes the same random
# configs on the same space. ResNet-18 on Zen 3 (stop 78's databases, seed 0): at 200 with transfer the twins
# spent 120 measurements on 85 distinct configs, at 1,000 without 634 on 296, and at 200 the three 512-channel 3x3
# twins (25% of the latency) got 8 measurements each while the two 64-channel ones (calls 2 each) got 40 and 11.
def _tuning_units(tuned: list[TaskRow]) -> tuple[list[TaskRow], list[int]]:
    """The rows the budget is shared among, and the calls each stands for: a row without twins for itself, and
    of each twin group (``_twin_groups``) its heaviest row (calls x FLOPs; the first of equals) for the
    whole group's calls."""
    lead: dict[int, TaskRow] = {}
    for g in _twin_groups(tuned):
        head = max(g, key=lambda q: q.weight * q.flops)  # max keeps the first of equals
        lead.update((id(r), head) for r in g)
    calls: dict[int, int] = {}
    for r in tuned:
        head = lead.get(id(r), r)
        calls[id(head)] = calls.get(id(head), 0) + r.weight
    units = [r for r in tuned if id(r) in calls]
    return units, [calls[id(r)] for r in units]


def _twin_groups(rows: list[TaskRow]) -> list[list[TaskRow]]:
    """The groups of two or more twins among the rows (the same template and operator shape, differing only in
    their fused epilogue: ``transfer.prior.TWINS``), in row order; rows of a template whose knobs are one task's
    own (``NO_TRANSFER``) have none."""
    from tensortune.transfer.features import TransferFeatures
    from tensortune.transfer.prior import NO_TRANSFER, twins

    groups: list[list[tuple[TaskRow, Any]]] = []
    for r in rows:
        if r.task is None or r.template is None or r.template in NO_TRANSFER:
            continue
        shape = TransferFeatures(r.task).shape
        for g in groups:
            if g[0][0].template == r.template and twins(g[0][1], shape):
                g.append((r, shape))
                break
        else:
            groups.append([(r, shape)])
    return [[r for r, _ in g] for g in groups if len(g) > 1]


def _share_twins(rows: list[TaskRow], storage: Any, recipe: str, seed: int) -> None:
    """Twin tasks (``_twin_groups``) pool their measurements: each takes the config with the lowest time
    measured on any of them (a config's fastest time on any twin; one that failed its check inside a built
    model on this task is never taken), so a config found late on one twin, or measured on a slow moment of
    the machine on another, serves all. The time shown is that fastest one, with the twin that measured it
    when the task's own measurement of the config was slower (stop 57: a 64-channel twin showed its own 20x
    outlier, 6,726 us, for a config its twin measured at 302.7 and that ran 331 us in the model).
    Measured (stop 56, rocketlake, ResNet-18 at 200 with transfer, seed 0;
    results/transfer/models-rocketlake-s56): [1, 16] / [32, 1] ran 808 us on one of the three 512-channel
    Winograd convs and 996 and 998 us on the other two, which kept configs of 978 and 990 us."""
    for g in _twin_groups(rows):
        measured: dict[int, tuple[float, dict[str, Any], str]] = {}  # config index -> (time, config, on which task)
        own: list[dict[int, float]] = []
        wrong: list[set[int]] = []
        for r in g:
            assert r.task is not None
            run = _run_id(r, recipe, seed)
            best = storage.best(r.task.key, r.task.target_json, k=1 << 30, run_id=run)
            own.append({b.config_index: b.cost for b in best})
            wrong.append(_wrong_configs(r, storage, recipe, seed))
            for b in best:
                if b.config_index not in measured or b.cost < measured[b.config_index][0]:
                    measured[b.config_index] = (b.cost, b.config, r.name)
        for r, mine, bad in zip(g, own, wrong, strict=True):
            pick = min(((t, i) for i, (t, _c, _n) in measured.items() if i not in bad), default=None)
            if pick is None:
                continue
            t, cfg, by = measured[pick[1]]
            if pick[1] == _index(r, r.best_values) and r.best_s <= t:
                continue  # its own best (or shared already)
            r.best_values, r.best_s = cfg, t
            if pick[1] not in mine:
                r.how += f"{TWIN_CONFIG} {by[:40]}"
            elif by != r.name:
                r.how += f"{TWIN_TIME} {by[:40]}"


def _wrong_configs(r: TaskRow, storage: Any, recipe: str, seed: int) -> set[int]:
    """The config indices that failed their check inside a built model on this task's run (``mark_wrong``)."""
    assert r.task is not None
    return {x.config_index for x in storage.records(r.task.key, r.task.target_json, _run_id(r, recipe, seed))
            if x.error == ErrorKind.WRONG_ANSWER}


def _index(r: TaskRow, values: dict[str, Any] | None) -> int | None:
    if values is None or r.task is None:
        return None
    sp = r.task.space
    return sp.index_of(sp.from_json(values))


def mark_wrong(row: TaskRow, storage: Any, recipe: str, seed: int, message: str,
               rows: list[TaskRow] | None = None) -> None:
    """Store the row's chosen config as a WRONG_ANSWER check record of its run (so no later build or
    resume takes it), then take the next-best stored config, its twins' among ``rows`` included, or none (TVM's
    default lowering)."""
    from tensortune.storage.records import TuningRecord

    assert row.task is not None and row.best_values is not None
    sp = row.task.space
    cfg = sp.from_json(row.best_values)
    storage.add([TuningRecord(task_key=row.task.key, target_key=row.task.target_json, config=sp.to_json(cfg),
                              config_index=sp.index_of(cfg), costs=(), error=ErrorKind.WRONG_ANSWER,
                              message=message[:2000], tuner=f"model-{recipe}", run_id=_run_id(row, recipe, seed),
                              seed=seed, kind="check", flops=int(row.flops), timestamp=time.time(),
                              task_name=row.name)])
    row.best_s, row.best_values = float("inf"), None
    row.how = row.how.split(TWIN_CONFIG)[0].split(TWIN_TIME)[0].split(TRANSFERRED)[0]
    # with its twins (the build's rows), so a twin tuned by its group's head takes the head's next-best config
    group = next((g for g in _twin_groups(rows or []) if any(r is row for r in g)), [row])
    _load_best(group, storage, recipe, seed)


def stored_result(model: ImportedModel, target: dict[str, Any], storage: Any, recipe: str = "autotvm",
                  seed: int = 0, use_templates: bool = True, conv_space: str = "full", transfer: bool = False,
                  corpus: Any = None) -> ModelTuneResult:
    """A stored whole-model run as :func:`tune_model` would return it, without measuring anything. With
    ``transfer`` (as the run was tuned), a task the run never measured gets a transferred config, as at the
    end of the run; without, TVM's default lowering."""
    start = time.perf_counter()
    fused, tasks, rows = plan_tasks(model, target, use_templates, conv_space)
    tuned = [r for r in rows if r.task is not None]
    _load_best(tuned, storage, recipe, seed)
    if transfer:
        _transfer_unmeasured(tuned, storage, recipe, seed, {}, corpus)
    return ModelTuneResult(rows, fused, tasks, time.perf_counter() - start, sum(r.trials for r in tuned))


def _run_id(r: TaskRow, recipe: str, seed: int) -> str:
    from tensortune.tuners.loop import make_run_id

    assert r.task is not None
    return make_run_id(r.task, f"model-{recipe}", seed)


MS_RECORDS = "database_tuning_record.json"
MS_WORKLOADS = "database_workload.json"
MS_WALL = "tensortune-wall.json"  # wall time of every (possibly interrupted) tuning session in the work dir


def repair_json_lines(path: str) -> int:
    """Drop a torn last line (a process killed mid-append) from a JSON-lines file; returns the number of
    whole lines. MetaSchedule's JSON database appends one line per record and cannot load a torn one."""
    import json
    import os

    if not os.path.exists(path):
        return 0
    with open(path, "rb") as f:
        lines = f.read().splitlines(keepends=True)
    good = 0
    for line in lines:
        try:
            json.loads(line)
        except ValueError:
            break
        good += 1
    if good < len(lines):
        if good < len(lines) - 1:
            raise ValueError(f"{path}: line {good + 1} of {len(lines)} is not JSON (only a torn last line is "
                             "repaired); move the work directory away to start MetaSchedule afresh")
        st = os.stat(path)
        tmp = path + ".tmp"
        with open(tmp, "wb") as f:
            f.writelines(lines[:good])
        os.replace(tmp, path)
        os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))  # the time of the last record, as it was
    return good


def _sessions(work_dir: str) -> list[dict[str, Any]]:
    import json
    import os

    path = os.path.join(work_dir, MS_WALL)
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return list(json.load(f))


def _save_sessions(work_dir: str, sessions: list[dict[str, Any]]) -> None:
    import json
    import os

    path = os.path.join(work_dir, MS_WALL)
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(sessions, f)
    os.replace(tmp, path)


def close_killed_sessions(work_dir: str) -> list[dict[str, Any]]:
    """End every earlier session that never recorded its end (killed) at its last record (the records
    file's modification time, read before anything more is appended), and return all earlier sessions."""
    import os

    sessions = _sessions(work_dir)
    rec = os.path.join(work_dir, MS_RECORDS)
    last = os.path.getmtime(rec) if os.path.exists(rec) else 0.0
    for s in sessions:
        if s.get("end") is None:
            s["end"] = max(s["start"], last)
    if sessions:
        _save_sessions(work_dir, sessions)
    return sessions


def tune_with_metaschedule(tasks: list[ModelTask], target: dict[str, Any], trials: int, work_dir: str,
                           seed: int = 0, per_iter: int = 64, log_path: str | None = None,
                           status: Callable[[str], None] = lambda _m: None) -> tuple[Any, float]:
    """MetaSchedule's own tuner (default space, XGBoost model, evolutionary search, gradient task
    scheduler) on the same extracted tasks with the same total budget. Returns its database and the
    wall time (of every session in ``work_dir``). Its runner processes get the target's core count, as
    ours do (see core/threads.py).

    Resumable: the records already in ``work_dir``'s database (an interrupted run's) count toward the
    budget, and only the rest is tuned. MetaSchedule seeds its search from that database's best
    records but starts its cost model and task scheduler afresh, so an interrupted run is not the same
    search as one unbroken run."""
    import os

    import tvm
    from tvm.s_tir import meta_schedule as ms

    from tensortune.core.intrinsics import register_tensor_intrinsics
    from tensortune.core.logs import native_log
    from tensortune.core.threads import set_default_threads, target_cores
    from tensortune.integrations.metaschedule_build import close_runner, cpu_builder

    tgt = tvm.target.Target(target)
    os.makedirs(work_dir, exist_ok=True)  # tune_tasks writes its JSON database there but does not create it
    sessions = close_killed_sessions(work_dir)
    earlier = sum(s["end"] - s["start"] for s in sessions)
    repair_json_lines(os.path.join(work_dir, MS_WORKLOADS))
    done = repair_json_lines(os.path.join(work_dir, MS_RECORDS))
    if done >= trials:
        status(f"MetaSchedule: its {done} records in {work_dir} already fill the budget of {trials}")
        return ms.database.JSONDatabase(work_dir=work_dir), earlier
    if done:
        status(f"MetaSchedule: resuming, {done} of {trials} measurements already in {work_dir} "
               f"({earlier:.0f} s of tuning); tuning the other {trials - done}")
    set_default_threads(target_cores(target))  # inherited by LocalRunner's worker processes
    session: dict[str, Any] = {"start": time.time(), "end": None}
    _save_sessions(work_dir, [*sessions, session])
    ctxs, weights = [], []
    register_tensor_intrinsics(tgt)  # this target's alone, not all TVM ships (core/intrinsics.py)
    for t in tasks:
        ctxs.append(ms.TuneContext(mod=t.mod, target=tgt, space_generator="post-order-apply",
                                   search_strategy="evolutionary", task_name=t.name, num_threads=os.cpu_count() or 1,
                                   rand_state=seed))
        weights.append(float(t.weight))
    runner = ms.runner.LocalRunner(evaluator_config=ms.runner.EvaluatorConfig(number=1, repeat=3, min_repeat_ms=20))
    try:
        with native_log(log_path):
            db = ms.tune.tune_tasks(tasks=ctxs, task_weights=weights, work_dir=work_dir,
                                    max_trials_global=trials - done, num_trials_per_iter=per_iter,
                                    builder=cpu_builder(), runner=runner)
    finally:
        close_runner(runner)
    session["end"] = time.time()
    _save_sessions(work_dir, [*sessions, session])
    return db, earlier + session["end"] - session["start"]


def metaschedule_best(tasks: list[ModelTask], db: Any) -> list[tuple[int, float | None]]:
    """Per task: how many records MetaSchedule's database holds and the best mean run time (s)."""
    out: list[tuple[int, float | None]] = []
    for t in tasks:
        if not db.has_workload(t.mod):
            out.append((0, None))
            continue
        wl = db.commit_workload(t.mod)
        recs = db.get_top_k(wl, 1 << 30)
        runs = [float(sum(float(x) for x in r.run_secs) / len(r.run_secs)) for r in recs
                if r.run_secs and all(float(x) < 1e9 for x in r.run_secs)]
        out.append((len(recs), min(runs) if runs else None))
    return out
