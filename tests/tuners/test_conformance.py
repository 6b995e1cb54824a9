"""Conformance of every registered recipe on replay (real costs, measured earlier, answered in seconds).

Each recipe runs on a ground-truth table (every config of a reduced CPU conv space measured on this
kind of machine); recipes that need hardware knobs run on the VTA simulator's co-design space, whose
exhaustive optimum is computed exactly. For every recipe:
  - no config is measured twice (the replay measurer counts every request);
  - a run killed mid-batch resumes from its database, measures nothing again and fills its budget;
  - a model-based recipe (all but random and grid) gets within 10% of the optimum within the budget
    and beats random search's median best at that budget.
"""

from __future__ import annotations

import statistics

import numpy as np
import pytest

from tensortune.bench.groundtruth import load_table
from tensortune.measure.replay import ReplayMeasurer
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.templates import make_task
from tensortune.tuners.loop import Budget, Tuner, make_run_id
from tensortune.tuners.recipes import create, recipe_names
from tensortune.tuners.recipes import recipe as recipe_of

CPU_TABLE = "L8"
CPU_BUDGET = 160  # of the table's 1,344 configs
GPU_TABLE = "L8"
GPU_BUDGET = 160  # of the CUDA table's 1,728 configs
# measured on the H200 L8 table, seed 0, at 160 (stop 88): below 90% of the optimum (3,930 GFLOP/s). At 256,
# chameleon reached 90% but only tied random's median and release+v stayed below. Their other checks run.
GPU_QUALITY_SHORT = {"chameleon": 3505.3, "release": 2993.7, "release+v": 3461.0}
VTA_LAYER = "resnet18:6"
VTA_BUDGET = 512  # of 66,692 runnable configs (9.9M in the space)
GLIMPSE_SEED = 5
GLIMPSE_BUDGET = 96
RANDOM_SEEDS = range(9)
SEED = 0


class Crash(Exception):
    pass


class CrashingMeasurer:
    """Delegates to ``inner`` until ``after`` configs have been measured, then dies mid-batch."""

    def __init__(self, inner: ReplayMeasurer | object, after: int) -> None:
        self.inner, self.after, self.seen = inner, after, 0

    def measure(self, inputs):
        if self.seen + len(inputs) > self.after:
            raise Crash(f"simulated crash after {self.seen} measurements")
        self.seen += len(inputs)
        return self.inner.measure(inputs)

    def close(self) -> None:
        pass


class SimMeasurer:
    """The VTA simulator with the replay measurer's bookkeeping (request counts)."""

    def __init__(self) -> None:
        from collections import Counter

        from tensortune.measure.vta_measurer import VtaSimMeasurer

        self.sim = VtaSimMeasurer()
        self.counts: Counter = Counter()

    def measure(self, inputs):
        for i in inputs:
            self.counts[(i.task.key, i.task.space.index_of(i.config))] += 1
        return self.sim.measure(inputs)

    def duplicates(self):
        return {k: n for k, n in self.counts.items() if n > 1}

    def close(self) -> None:
        pass


class Case:
    def __init__(self, hardware: bool, glimpse: bool = False, gpu: bool = False) -> None:
        self.options: dict = {}
        if gpu:  # the papers' GPU setting: a CUDA table measured on an H200 (bench.groundtruth_cuda)
            from tensortune.bench.groundtruth_cuda import CUDA_TABLE_DIR

            gt = load_table(GPU_TABLE, CUDA_TABLE_DIR)
            self.task = gt.task
            self.optimum = gt.optimum_gflops
            self.budget = GPU_BUDGET
            self.make_measurer = lambda: ReplayMeasurer([gt])
        elif glimpse:  # a VTA design Glimpse never saw; its parts trained on 12 others
            from tensortune.bench.glimpse_vta import make_pair
            from tensortune.hardware.blueprint import Blueprint
            from tensortune.hardware.specs import vta_specs
            from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
            from tensortune.transfer.glimpse import train_vta
            from tensortune.workloads import resolve_layer

            family = vta_specs(DEFAULT_HW_OPTIONS)
            order = np.random.default_rng(GLIMPSE_SEED).permutation(len(family))
            name, wl = resolve_layer(VTA_LAYER)
            emb = Blueprint.fit(family, 6)
            spec, pair = next((family[i], p) for i in order[12:]
                              for p in [make_pair(family[i], name, wl, emb.embed([family[i]])[0])] if p.valid.sum() > 50)
            models = train_vta(chosen=[family[i] for i in order[:12]], seed=0, af_iterations=4)
            self.task = make_task(wl, "conv2d_nchw.vta-sim", dict(spec.target), name)
            from tensortune.core.values import MeasureInput
            from tensortune.space import Config

            best = Config(tuple(int(i) for i in pair.idx[int(np.argmin(pair.cycles))]))
            self.optimum = self.task.flops / SimMeasurer().measure([MeasureInput(self.task, best)])[0].cost / 1e9
            self.budget = GLIMPSE_BUDGET
            self.make_measurer = SimMeasurer
            self.options = {"glimpse": models.for_task(self.task.space, wl, self.task.target, 8),
                            "budget": GLIMPSE_BUDGET}
        elif hardware:
            from tensortune.bench.vta_oracle import exhaustive_optimum
            from tensortune.workloads import resolve_layer

            _, wl = resolve_layer(VTA_LAYER)
            self.task = make_task(wl, "conv2d_codesign.vta-sim", {"kind": "vta-sim"})
            self.optimum = exhaustive_optimum(self.task).gflops
            self.budget = VTA_BUDGET
            self.make_measurer = SimMeasurer
        else:
            gt = load_table(CPU_TABLE)
            self.task = gt.task
            self.optimum = gt.optimum_gflops
            self.budget = CPU_BUDGET
            self.make_measurer = lambda: ReplayMeasurer([gt])
        self._random: float | None = None

    def run(self, recipe: str, seed: int, measurer, db, budget: int | None = None):
        strat = create(recipe, self.task.space, seed, task=self.task,
                       **(self.options if recipe_of(recipe).needs_glimpse else {}))
        return Tuner(self.task, strat, measurer, db, Budget(trials=budget or self.budget), tuner_name=recipe,
                     seed=seed, batch_size=16, remeasure_best=False).run()

    def best_gflops(self, db, recipe: str, seed: int) -> float:
        recs = db.records(self.task.key, self.task.target_json, make_run_id(self.task, recipe, seed), kind="trial")
        return max((r.gflops for r in recs), default=0.0)

    @property
    def random_median(self) -> float:
        if self._random is None:
            bests = []
            for s in RANDOM_SEEDS:
                db = SQLiteStorage(":memory:")
                self.run("random", s, self.make_measurer(), db)
                bests.append(self.best_gflops(db, "random", s))
            self._random = statistics.median(bests)
        return self._random


@pytest.fixture(scope="module")
def cases():
    return {False: Case(False), True: Case(True), "glimpse": Case(False, glimpse=True)}


@pytest.fixture(scope="module")
def gpu_case():
    return Case(False, gpu=True)


def test_every_registered_recipe_is_covered():
    assert set(recipe_names()) >= {"random", "grid", "autotvm", "chameleon", "ml2tuner", "arco", "arco-hier"}
    # what each recipe needs is data of the recipe, not a list here
    assert {n for n in recipe_names() if not recipe_of(n).model_based} == {"random", "grid"}
    assert {n for n in recipe_names() if recipe_of(n).needs_hardware_knobs} == {"arco-hier"}
    assert {n for n in recipe_names() if recipe_of(n).needs_glimpse} == {"glimpse"}
    # only ReLeASE as published is excused from beating random search (its reason is in the recipe)
    assert {n for n in recipe_names() if recipe_of(n).not_better_than_random} == {"release", "release+v"}


def test_replay_answers_the_table_and_refuses_unknown_configs(tmp_path):
    from tensortune.core.values import MeasureInput
    from tensortune.measure.replay import ReplayMiss

    gt = load_table(CPU_TABLE)
    m = ReplayMeasurer([gt])
    r = m.measure([MeasureInput(gt.task, gt.optimum_config)])[0]
    assert r.ok and r.cost == gt.optimum_cost and m.charged_seconds > 0
    invalid = next(i for i in range(gt.task.space.size) if gt.position(i) is None)
    with pytest.raises(ReplayMiss):
        m.measure([MeasureInput(gt.task, gt.task.space.config(invalid))])
    # a records database is a replay source too: what one run measured, another run gets back
    db = SQLiteStorage(tmp_path / "r.db")
    Tuner(gt.task, create("random", gt.task.space, 3), ReplayMeasurer([gt]), db, Budget(trials=20),
          remeasure_best=False).run()
    from_db = ReplayMeasurer(storage=db, on_missing="fail")
    for rec in db.records(kind="trial"):
        got = from_db.measure([MeasureInput(gt.task, gt.task.space.config(rec.config_index))])[0]
        assert got.cost == rec.cost == gt.cost[gt.position(rec.config_index)]
    miss = from_db.measure([MeasureInput(gt.task, gt.optimum_config)])[0] if not any(
        r.config_index == gt.task.space.index_of(gt.optimum_config) for r in db.records()) else None
    assert miss is None or not miss.ok


GPU_RECIPES = [n for n in recipe_names() if not recipe_of(n).needs_hardware_knobs and not recipe_of(n).needs_glimpse]


@pytest.mark.parametrize("recipe", recipe_names())
def test_recipe_conformance(recipe, cases, tmp_path):
    r = recipe_of(recipe)
    check_conformance(recipe, cases["glimpse" if r.needs_glimpse else r.needs_hardware_knobs], tmp_path)


@pytest.mark.parametrize("recipe", GPU_RECIPES)
def test_recipe_conformance_on_the_gpu_table(recipe, gpu_case, tmp_path):
    """The same checks in the papers' GPU setting: a CUDA conv space measured on an H200, with its
    invalid configs (block limits, failed launches) among the answers."""
    best = check_conformance(recipe, gpu_case, tmp_path, quality=recipe not in GPU_QUALITY_SHORT)
    if recipe in GPU_QUALITY_SHORT:  # strict: once it reaches 90%, this list is out of date
        assert best < 0.9 * gpu_case.optimum, f"{recipe} now reaches 90% on the GPU table: drop it from the list"
        pytest.xfail(f"{recipe} reaches {best:.0f} of {gpu_case.optimum:.0f} GFLOP/s (< 90%) in {GPU_BUDGET} on "
                     "the GPU table")


def check_conformance(recipe: str, case: Case, tmp_path, quality: bool = True) -> float:
    """The checks; returns the full run's best GFLOP/s. ``quality`` False: no 90%/random checks."""
    # 1) a full run: nothing measured twice; model-based recipes reach 90% of the optimum and beat random
    m = case.make_measurer()
    db = SQLiteStorage(tmp_path / "full.db")
    s = case.run(recipe, SEED, m, db)
    assert s.trials == case.budget
    assert not m.duplicates(), f"{recipe} measured configs twice: {m.duplicates()}"
    best = case.best_gflops(db, recipe, SEED)
    if recipe_of(recipe).model_based and quality:
        assert best >= 0.9 * case.optimum, f"{recipe}: {best:.1f} GFLOP/s < 90% of the optimum {case.optimum:.1f}"
        rnd = case.random_median
        if not recipe_of(recipe).not_better_than_random:  # a faithful method that does not: exempt, with reason
            assert best > rnd or np.isclose(best, case.optimum), f"{recipe}: {best:.1f} does not beat random's {rnd:.1f}"
    # 2) killed mid-batch at about half the budget, then resumed with fresh objects
    half = case.budget // 2
    db2 = SQLiteStorage(tmp_path / "crash.db")
    first = case.make_measurer()
    with pytest.raises(Crash):
        case.run(recipe, SEED, CrashingMeasurer(first, after=half + 5), db2)
    stored = db2.count(make_run_id(case.task, recipe, SEED))
    assert 0 < stored <= half + 5
    second = case.make_measurer()
    s2 = case.run(recipe, SEED, second, db2)
    assert s2.resumed == stored and s2.trials == case.budget
    recs = db2.records(case.task.key, case.task.target_json, make_run_id(case.task, recipe, SEED), kind="trial")
    idx = [r.config_index for r in recs]
    assert len(idx) == case.budget == len(set(idx)), "a resumed run measured a stored config again"
    assert not second.duplicates()
    stored_keys = {(case.task.key, i) for i in idx[:stored]}
    assert not stored_keys & set(second.counts), "the resumed run asked again for configs measured before the crash"
    return best
