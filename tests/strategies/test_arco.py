"""ARCO on the VTA model: the flat recipe with resume, and the hierarchical co-design strategy."""


import numpy as np
import pytest

from tensortune.accel.vta import VtaHardware
from tensortune.bench.vta_oracle import exhaustive_optimum
from tensortune.measure.vta_measurer import VtaSimMeasurer
from tensortune.storage import SQLiteStorage
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create
from tensortune.workloads import ModelConvs, resolve_layer

VTA = {"kind": "vta-sim"}


def test_arco_recipe_on_vta_with_resume(db_path):
    _, wl = resolve_layer("resnet18:11")
    task = make_task(wl, "conv2d_codesign.vta-sim", VTA)

    def run(trials):
        strat = create("arco", task.space, 0, plan_size=16)
        strat.explorer.n_walkers, strat.explorer.max_steps = 32, 50
        return Tuner(task, strat, VtaSimMeasurer(), SQLiteStorage(db_path), Budget(trials=trials), tuner_name="arco",
                     batch_size=8).run(), strat

    s1, st1 = run(48)
    recs = SQLiteStorage(db_path).records(run_id=s1.run_id, kind="trial")
    assert len(recs) == 48 and len({r.config_index for r in recs}) == 48
    assert all(task.space.is_valid(task.space.config(r.config_index)) for r in recs)  # budgets never measured
    assert s1.plan_lengths and all(1 <= n <= 16 for n in s1.plan_lengths)
    assert SQLiteStorage(db_path).load_checkpoint(s1.run_id, "strategy") is not None
    s2, st2 = run(64)
    assert s2.resumed == 48 and s2.trials == 64
    assert st2.explorer.rounds > st1.explorer.rounds


# --------------------------------------------------------------------------- hierarchical co-design
def test_hierarchical_codesign_beats_software_only_on_a_whole_model(db_path):
    """arco-hier (design outer, per-layer schedules inner) finds one design for all AlexNet conv layers
    that beats the best any schedule can do on the default design, and its per-layer assemblies run."""
    task = make_task(ModelConvs.of("alexnet"), "model_codesign.vta-sim", VTA)
    sw_opts = [exhaustive_optimum(make_task(wl, "conv2d_nchw.vta-sim", VTA)) for wl in task.workload.layers]
    sw_opt = sum(c * o.seconds for o, c in zip(sw_opts, task.workload.counts, strict=True))
    # warm start: the default design running each layer's best software-only schedule
    init = dict(VtaHardware().knob_values())
    for i, o in enumerate(sw_opts, 1):
        init.update({f"L{i}.{k}": v for k, v in o.values.items()})
    warm = [task.space.from_json(init)]
    db = SQLiteStorage(db_path)
    strat = create("arco-hier", task.space, 1, plan_size=32)
    s = Tuner(task, strat, VtaSimMeasurer(), db, Budget(trials=160), tuner_name="arco-hier", seed=1, batch_size=16,
              remeasure_best=False, initial_configs=warm).run()
    assert s.trials == 160
    assert s.best_cost < 0.8 * sw_opt
    recs = db.records(task.key, task.target_json)
    assert len({r.config_index for r in recs}) == len(recs)  # nothing measured twice
    assert strat.assembled >= 1
    assert len(strat.plan_lengths) >= 3 and all(n <= 32 for n in strat.plan_lengths)
    # a resumed run replays the per-layer profiles from the database and goes on
    strat2 = create("arco-hier", task.space, 1, plan_size=32)
    s2 = Tuner(task, strat2, VtaSimMeasurer(), db, Budget(trials=192), tuner_name="arco-hier", seed=1, batch_size=16,
               remeasure_best=False, initial_configs=warm).run()
    assert s2.resumed == 160 and s2.trials == 192 and s2.best_cost <= s.best_cost
    assert len(strat2._layer_secs) == 192


def test_hierarchical_codesign_rejects_spaces_it_cannot_split():
    _, wl = resolve_layer("resnet18:6")
    with pytest.raises(ValueError, match="no hardware knobs"):
        create("arco-hier", make_task(wl, "conv2d_nchw.vta-sim", VTA).space, 0)
    task = make_task(ModelConvs.of("alexnet"), "model_codesign.vta-sim", VTA)
    strat = create("arco-hier", task.space, 0, plan_size=4)
    cfgs = task.space.sample(2, np.random.default_rng(0))
    with pytest.raises(ValueError, match="per-layer times"):
        strat.tell(cfgs, [0.0, 0.0])  # a measurer without a per-layer profile
    # a single-layer co-design space needs no profile: the layer's time is the total
    co = make_task(wl, "conv2d_codesign.vta-sim", VTA)
    s = Tuner(co, create("arco-hier", co.space, 1, plan_size=16), VtaSimMeasurer(), SQLiteStorage(":memory:"),
              Budget(trials=64), tuner_name="arco-hier", seed=1, batch_size=16, remeasure_best=False).run()
    assert s.trials == 64 and s.best_cost < float("inf")
