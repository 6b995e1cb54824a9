"""ML2Tuner: validity model V, hidden features from a real compile step, (alpha+1)N selection, V as a filter."""

from __future__ import annotations

import numpy as np
import pytest

from tensortune.core.values import MeasureInput
from tensortune.cost_models.validity import ValidityModel
from tensortune.features import HiddenFeatures
from tensortune.measure.vta_measurer import VtaSimMeasurer
from tensortune.space import Config
from tensortune.storage import SQLiteStorage
from tensortune.strategies.ml2tuner import fit_p_and_a
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create
from tensortune.workloads import Conv2d, resolve_layer

VTA = {"kind": "vta-sim"}


def _all_configs(task):
    sp = task.space
    idx = np.array([sp.config(i).indices for i in range(sp.size)])
    return [Config(tuple(int(v) for v in row)) for row in idx[sp.valid_mask(idx)]]


def test_validity_model_learns_the_accelerators_buffer_limits():
    """V, trained on measured outcomes of 40% of a layer's space, predicts the rest (truth: the
    accelerator's buffer, encoding and hazard limits) far better than guessing the majority class."""
    _, wl = resolve_layer("resnet18:2")
    task = make_task(wl, "conv2d_nchw.vta-sim", VTA)
    cfgs = _all_configs(task)
    res = VtaSimMeasurer().measure([MeasureInput(task, c) for c in cfgs])
    valid = np.array([r.ok for r in res])
    rng = np.random.default_rng(0)
    order = rng.permutation(len(cfgs))
    n_train = int(0.4 * len(cfgs))
    tr, te = order[:n_train], order[n_train:]
    x = task.space.encode(cfgs)
    v = ValidityModel(seed=0)
    v.fit(x[tr], valid[tr])
    pred = v.predict(x[te])
    acc = float((pred == valid[te]).mean())
    majority = max(valid[te].mean(), 1 - valid[te].mean())
    assert 0.3 < 1 - valid.mean() < 0.95  # a real mix of valid and invalid
    assert acc >= 0.9 and acc > majority + 0.1, (acc, majority)
    # unfitted (one class seen) it lets everything through instead of blocking the search
    v1 = ValidityModel()
    v1.fit(x[:5], np.zeros(5, dtype=bool))
    assert not v1.fitted and v1.predict(x[:7]).all()


def test_vta_hidden_features_separate_configs_visible_features_cannot():
    """Same layer and knob values on two designs that differ only in the input buffer: the visible
    features are identical, the compile step's buffer depths are not, and neither are the outcomes."""
    _, wl = resolve_layer("resnet18:2")
    small = make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim", "hw": {"LOG_INP_BUFF_SIZE": 14}})
    large = make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim", "hw": {"LOG_INP_BUFF_SIZE": 15}})
    assert small.space.names == large.space.names and small.space.size == large.space.size
    cfgs = _all_configs(small)
    assert np.array_equal(small.space.encode(cfgs), large.space.encode(cfgs))
    hs, hl = HiddenFeatures(small)(cfgs), HiddenFeatures(large)(cfgs)
    assert hs.shape == hl.shape and np.isfinite(hs).all()
    assert (np.abs(hs - hl).sum(axis=1) > 0).all()  # every config: the depths differ
    m = VtaSimMeasurer()
    ok_s = [r.ok for r in m.measure([MeasureInput(small, c) for c in cfgs])]
    ok_l = [r.ok for r in m.measure([MeasureInput(large, c) for c in cfgs])]
    assert sum(ok_l) > sum(ok_s)  # ... and it matters: more tiles fit the larger buffer
    # the simulator's verdict and cycle counts are not hidden features
    from tensortune.features.hidden import VTA_OUTCOMES
    from tensortune.templates import get_template

    d = get_template(small.template).instantiate(wl, small.space.values(cfgs[0]), small.target)[0]
    assert hs.shape[1] == len([k for k in d if k not in VTA_OUTCOMES])


def test_cpu_hidden_features_come_from_the_compiled_schedule():
    """Two CPU convs with the same output size have the same knobs and visible features; compiling
    shows one needs a padding stage (boundary handling) and reads a different input."""
    a = make_task(Conv2d.make(1, 16, 14, 14, 16, 3, 1, 1), "conv2d_nchw.llvm", {"kind": "llvm", "num-cores": 2})
    b = make_task(Conv2d.make(1, 16, 16, 16, 16, 3, 1, 0), "conv2d_nchw.llvm", {"kind": "llvm", "num-cores": 2})
    assert a.space.names == b.space.names and a.space.size == b.space.size
    cfgs = a.space.sample(3, np.random.default_rng(0))
    assert np.array_equal(a.space.encode(cfgs), b.space.encode(cfgs))
    ha, hb = HiddenFeatures(a), HiddenFeatures(b)
    fa, fb = ha(cfgs), hb(cfgs)
    assert fa.shape == (3, 2 * 164 + 1) and np.isfinite(fa).all()
    assert fa[0, -1] > fb[0, -1]  # the padded conv has more buffer stores (its pad stage)
    assert not np.allclose(fa, fb)
    # configs of one task differ in their compiled features too, and features are cached
    assert not np.allclose(fa[0], fa[1])
    ha(cfgs)
    assert ha.compiles == 3


def test_ml2tuner_measures_exactly_n_per_round_chosen_by_a_from_the_pool(db_path):
    _, wl = resolve_layer("resnet18:2")
    task = make_task(wl, "conv2d_nchw.vta-sim", VTA, "resnet18:2")
    strat = create("ml2tuner", task.space, 0, task=task)
    assert strat.n == 10 and strat.n_pool == 20
    pools = []
    orig = strat.hidden

    class Spy:  # records every pool compiled for hidden features; counts as the real one does
        @property
        def compiles(self):
            return orig.compiles

        def __call__(self, cfgs):
            pools.append(list(cfgs))
            return orig(cfgs)

    strat.hidden = Spy()
    s = Tuner(task, strat, VtaSimMeasurer(), SQLiteStorage(db_path), Budget(trials=70), tuner_name="ml2tuner", seed=0,
              batch_size=16, remeasure_best=False).run()
    assert s.trials == 70
    rounds = len(strat.plan_lengths)
    assert rounds >= 5 and all(n == 10 for n in strat.plan_lengths)
    assert 10 + 10 * rounds >= 70  # after the 10 initial random ones, every round measures N
    assert len(pools) >= 5
    # each model-guided round compiled its (alpha+1)N pool, and what was measured came from it
    assert strat.pool_sizes and all(n == 20 for n in strat.pool_sizes)
    measured = [Config(tuple(c.indices)) for c in strat.xs]
    pool_sets = [set(p) for p in pools if len(p) == 20]
    assert pool_sets
    for rnd in range(len(pool_sets)):
        chunk = measured[10 + 10 * rnd: 20 + 10 * rnd]
        assert all(c in pool_sets[rnd] for c in chunk)
    with pytest.raises(ValueError, match="needs the task"):
        create("ml2tuner", task.space, 0)


def test_validity_filter_stage_in_other_recipes(db_path):
    _, wl = resolve_layer("resnet18:2")
    task = make_task(wl, "conv2d_nchw.vta-sim", VTA, "resnet18:2")
    strat = create("chameleon+v", task.space, 0, plan_size=16)
    assert strat.name == "chameleon+v" and strat.validity is not None
    s = Tuner(task, strat, VtaSimMeasurer(), SQLiteStorage(db_path), Budget(trials=64), tuner_name="chameleon+v",
              seed=0, batch_size=16, remeasure_best=False).run()
    assert s.trials == 64 and strat.validity.fitted
    # while exploring, configurations V predicts invalid score below every one it lets through
    idx = task.space.random_indices(500, np.random.default_rng(1))
    ok = strat.validity.predict(task.space.encode_indices(idx))
    assert ok.any() and (~ok).any()
    sc = strat.score(idx)
    assert sc[ok].min() > sc[~ok].max()
    assert len(strat.rejected_by_v) == len(strat.plan_lengths)  # and the candidates were filtered each round
    assert create("autotvm+v", task.space, 0).validity is not None and create("autotvm", task.space, 0).validity is None


def test_a_and_p_fit_on_valid_outcomes_only():
    _, wl = resolve_layer("resnet18:2")
    task = make_task(wl, "conv2d_nchw.vta-sim", VTA)
    cfgs = _all_configs(task)[:200]
    res = VtaSimMeasurer().measure([MeasureInput(task, c) for c in cfgs])
    ys = [task.flops / r.cost if r.ok else 0.0 for r in res]
    p, a = fit_p_and_a(task.space, HiddenFeatures(task), cfgs, ys)
    assert p.fitted and a.fitted
    with pytest.raises(ValueError, match="two valid"):
        fit_p_and_a(task.space, HiddenFeatures(task), cfgs[:3], [0.0, 0.0, 1.0])


def test_cli_ml2tuner_and_validity_filter(tmp_path, capsys):
    from tensortune.cli.main import main

    db = str(tmp_path / "m.db")
    assert main(["tune", "--target", "vta-sim", "--layer", "resnet18:2", "--tuner", "ml2tuner", "--trials", "40",
                 "--db", db, "--no-progress"]) == 0
    assert main(["tune", "--target", "vta-sim", "--layer", "resnet18:2", "--tuner", "autotvm+v", "--trials", "40",
                 "--plan-size", "16", "--db", db, "--no-progress"]) == 0
    recs = [r for r in SQLiteStorage(db).records() if r.kind == "trial"]
    assert {r.tuner for r in recs} == {"ml2tuner", "autotvm+v"} and len(recs) == 80
    assert main(["tune", "--target", "vta-sim", "--layer", "resnet18:2", "--tuner", "ml3tuner", "--db", db]) == 2
    assert "unknown tuner" in capsys.readouterr().err
