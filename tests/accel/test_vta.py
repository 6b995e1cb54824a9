"""The VTA-like accelerator model, its functional execution, spaces, measurer, MAPPO and ARCO."""

import itertools

import numpy as np
import pytest

from tensortune.accel.vta import ConvShape, Violation, VtaHardware, evaluate, evaluate_one
from tensortune.accel.vta_functional import BufferOverflow, direct_conv_int, execute, requantize
from tensortune.bench.vta_oracle import exhaustive_optimum
from tensortune.core.values import ErrorKind, MeasureInput
from tensortune.explorers.mappo import MAPPOExplorer
from tensortune.measure.vta_measurer import VtaSimMeasurer
from tensortune.samplers.confidence import ConfidenceSampler
from tensortune.space import Config, OptionKnob, SearchSpace
from tensortune.storage import SQLiteStorage
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create
from tensortune.workloads import Conv2d, ModelConvs, resolve_layer

VTA = {"kind": "vta-sim"}


def _sw(th, tw, tci=1, tco=1, ht=1, ot=1, tb=1):
    return {"tile_b": tb, "tile_h": th, "tile_w": tw, "tile_ci": tci, "tile_co": tco, "h_nthread": ht, "oc_nthread": ot}


def _eval(layer, hw, sw):
    r = evaluate(layer, {**hw.knob_values(), **sw})
    return {k: (v.item() if isinstance(v, np.ndarray) else v) for k, v in r.items()}


def _data(layer, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.integers(-127, 128, size=(layer.N, layer.C, layer.H, layer.W), dtype=np.int8)
    w = rng.integers(-127, 128, size=(layer.K, layer.C, layer.R, layer.S), dtype=np.int8)
    return x, w


# --------------------------------------------------------------------------- constraints by hand
def test_input_tile_that_fits_exactly_is_valid_and_one_entry_more_overflows():
    # 1x16 input entries of 16 B; a 1 KiB input buffer holds 64 entries
    hw = VtaHardware(LOG_INP_BUFF_SIZE=10)
    fits = ConvShape.of(Conv2d.make(1, 16, 12, 12, 16, 3, 1, 1))
    r = _eval(fits, hw, _sw(6, 6))  # input tile (6-1+3) x (6-1+3) = 64 entries
    assert r["violation"] == Violation.NONE and r["inp_entries"] == 64 and r["inp_depth"] == 64
    over = ConvShape.of(Conv2d.make(1, 16, 33, 33, 16, 3, 1, 1))
    r = _eval(over, hw, _sw(3, 11))  # (3-1+3) x (11-1+3) = 5 x 13 = 65 entries
    assert r["violation"] == Violation.INP_BUFFER and (r["need"], r["have"]) == (65, 64)
    assert np.isinf(r["cycles"])
    # the execution agrees: the first runs and is right, the second writes past the buffer
    x, w = _data(fits)
    acc, _ = execute(fits, hw, _sw(6, 6), x, w)
    assert np.array_equal(acc, direct_conv_int(fits, x, w))
    x, w = _data(over)
    with pytest.raises(BufferOverflow) as e:
        execute(over, hw, _sw(3, 11), x, w)
    assert e.value.buffer == "inp" and e.value.depth == 64


def test_virtual_threads_split_the_buffers():
    hw = VtaHardware(LOG_INP_BUFF_SIZE=10)
    layer = ConvShape.of(Conv2d.make(1, 16, 12, 12, 16, 3, 1, 1))
    # tile 6 x 6 with two h-threads: two 3 x 6 thread tiles of (3-1+3) x 8 = 40 entries, 80 > 64
    r = _eval(layer, hw, _sw(6, 6, ht=2))
    assert r["violation"] == Violation.INP_BUFFER and (r["need"], r["have"]) == (80, 64)


def test_accumulator_weight_uop_encoding_and_hazard_limits():
    layer = ConvShape.of(Conv2d.make(1, 64, 14, 14, 256, 3, 1, 1))  # 4 ci blocks, 16 co blocks
    # accumulator 1x16 int32 = 64 B entries; 2^12 B -> 64 entries; tile 7x7x2 co blocks = 98 > 64
    r = _eval(layer, VtaHardware(LOG_ACC_BUFF_SIZE=12), _sw(7, 7, tco=2))
    assert r["violation"] == Violation.ACC_BUFFER and (r["need"], r["have"]) == (98, 64)
    # weights 16x16 = 256 B entries; 2^14 B -> 64 entries; 3x3 x 4 ci x 2 co = 72 > 64
    r = _eval(layer, VtaHardware(LOG_WGT_BUFF_SIZE=14), _sw(7, 7, tci=4, tco=2))
    assert r["violation"] == Violation.WGT_BUFFER and (r["need"], r["have"]) == (72, 64)
    # micro-ops: 7 (w) x 4 (ci) x 9 (r, s) = 252 per kernel; 2^10 B / 4 B = 256 uops; two threads need 504
    assert _eval(layer, VtaHardware(LOG_UOP_BUFF_SIZE=10), _sw(7, 7, tci=4))["violation"] == Violation.NONE
    r = _eval(layer, VtaHardware(LOG_UOP_BUFF_SIZE=10), _sw(7, 7, tci=4, tco=2, ot=2))
    assert r["violation"] == Violation.UOP_BUFFER and (r["need"], r["have"]) == (504, 256)
    # ML2Tuner's ZCU102 sizes: 4096 inp + 2048 wgt + 4096 acc entries need 12 + 11 + 12 = 35 index bits
    big = VtaHardware(LOG_INP_BUFF_SIZE=16, LOG_WGT_BUFF_SIZE=19, LOG_ACC_BUFF_SIZE=18)
    r = _eval(layer, big, _sw(7, 7))
    assert r["violation"] == Violation.HW_ENCODING and r["need"] == 35
    r = _eval(layer, VtaHardware(), _sw(2, 7))
    assert r["violation"] == Violation.ACC_HAZARD


# --------------------------------------------------------------------------- functional execution
@pytest.mark.parametrize("conv,hw,sw", [
    (Conv2d.make(1, 32, 10, 10, 48, 3, 1, 1), VtaHardware(), _sw(5, 5, tci=2, tco=3)),
    (Conv2d.make(1, 32, 10, 10, 64, 3, 1, 1), VtaHardware(), _sw(10, 10, tci=1, tco=2, ht=2, ot=2)),
    (Conv2d.make(1, 20, 9, 9, 24, 3, 2, 1), VtaHardware(BLOCK_IN=8, BLOCK_OUT=8, LOG_INP_BUFF_SIZE=13, LOG_WGT_BUFF_SIZE=16, LOG_ACC_BUFF_SIZE=15), _sw(5, 5, tci=3, tco=3)),
    (Conv2d.make(2, 16, 8, 8, 32, 1, 1, 0), VtaHardware(BATCH=2, BLOCK_OUT=32), _sw(4, 8, ht=1)),
    (Conv2d.make(2, 16, 6, 6, 16, 3, 1, 1), VtaHardware(BATCH=1), _sw(3, 6, tb=2)),
    (Conv2d.make(1, 3, 15, 15, 16, 7, 2, 3), VtaHardware(), _sw(4, 4)),
])
def test_tiled_execution_matches_direct_convolution(conv, hw, sw):
    layer = ConvShape.of(conv)
    assert _eval(layer, hw, sw)["violation"] == Violation.NONE
    x, w = _data(layer, seed=3)
    acc, out = execute(layer, hw, sw, x, w)
    ref = direct_conv_int(layer, x, w)
    assert np.array_equal(acc, ref)
    assert np.array_equal(out, requantize(ref, 8))


def test_every_schedule_of_a_small_layer_executes_correctly_or_is_rejected_by_both():
    hw = VtaHardware(LOG_INP_BUFF_SIZE=11, LOG_ACC_BUFF_SIZE=12)
    layer = ConvShape.of(Conv2d.make(1, 32, 12, 12, 32, 3, 1, 1))
    x, w = _data(layer)
    ref = direct_conv_int(layer, x, w)
    seen = set()
    for th, tw, tci, tco, ht, ot in itertools.product([3, 6, 12], [3, 4, 12], [1, 2], [1, 2], [1, 2], [1, 2]):
        if th % ht or tco % ot or th // ht <= 2:
            continue
        sw = _sw(th, tw, tci, tco, ht, ot)
        r = _eval(layer, hw, sw)
        v = Violation(r["violation"])
        over = {b for b in ("inp", "wgt", "acc", "uop") if r[f"{b}_entries"] > r[f"{b}_depth"]}
        try:
            acc, _ = execute(layer, hw, sw, x, w)
        except BufferOverflow as e:
            # the execution trips on one of the buffers the model finds too small, and the model reports one
            assert e.buffer in over and v.name.lower() in {f"{b}_buffer" for b in over}, (sw, v, e)
            seen.add(v)
            continue
        assert not over
        assert v is Violation.NONE, (sw, v)
        assert np.array_equal(acc, ref)
        seen.add(v)
    assert {Violation.NONE, Violation.INP_BUFFER, Violation.ACC_BUFFER} <= seen


# --------------------------------------------------------------------------- spaces and measurer
def test_measurer_reports_precise_violations_and_cycles():
    _, wl = resolve_layer("resnet18:6")
    task = make_task(wl, "conv2d_nchw.vta-sim", VTA)
    sp = task.space
    idx = np.array([sp.config(i).indices for i in range(sp.size)])
    cfgs = [Config(tuple(int(v) for v in row)) for row in idx[sp.valid_mask(idx)]]
    res = VtaSimMeasurer().measure([MeasureInput(task, c) for c in cfgs])
    bad = [r for r in res if not r.ok]
    assert 0.3 < len(bad) / len(res) < 0.95  # ML2Tuner reports 50-83% invalid on ResNet-18 layers
    assert all(r.error == ErrorKind.COMPILE_DEVICE for r in bad)
    kinds = {r.message.split(":")[0] for r in bad}
    assert {"inp_buffer", "wgt_buffer", "acc_hazard"} <= kinds
    assert all("entries" in r.message for r in bad if r.message.startswith(("inp_", "wgt_", "acc_b")))
    # the best measured config is the exhaustive optimum
    best = min(r.cost for r in res if r.ok)
    opt = exhaustive_optimum(task)
    assert best == pytest.approx(opt.seconds, rel=1e-12)
    assert opt.n_configs == len(cfgs) and opt.n_runnable == len(res) - len(bad)
    # no GEMM core does better than its peak: 1x16x16 MACs per cycle at 100 MHz
    assert opt.gflops < 2 * 256 * 100e6 / 1e9


@pytest.mark.parametrize("layer", ["resnet18:1", "resnet18:6", "alexnet:1", "vgg16:9"])
def test_scalar_model_equals_vectorised_model(layer):
    """evaluate_one (single measurements) and evaluate (batches, exhaustive search) are one model."""
    _, wl = resolve_layer(layer)
    task = make_task(wl, "conv2d_codesign.vta-sim", VTA)
    sp = task.space
    idx = sp.random_indices(3000, np.random.default_rng(1))  # structurally invalid rows included
    vals = sp.value_arrays(idx)
    ref = evaluate(ConvShape.of(wl), {k: v.astype(np.int64) for k, v in vals.items()})
    kinds = set()
    for j in range(len(idx)):
        one = evaluate_one(ConvShape.of(wl), {k: int(v[j]) for k, v in vals.items()})
        assert set(one) == set(ref)
        for k, v in one.items():
            assert v == pytest.approx(float(ref[k][j]), rel=1e-12), (k, j)
        kinds.add(one["violation"])
    assert len(kinds) >= 5  # the comparison covered valid configs and several kinds of violation


def test_functional_mode_checks_valid_configs():
    task = make_task(Conv2d.make(1, 32, 10, 10, 32, 3, 1, 1), "conv2d_nchw.vta-sim", VTA)
    sp = task.space
    cfgs = sp.sample(40, np.random.default_rng(0))
    res = VtaSimMeasurer(functional=True).measure([MeasureInput(task, c) for c in cfgs])
    plain = VtaSimMeasurer().measure([MeasureInput(task, c) for c in cfgs])
    assert [r.error for r in res] == [r.error for r in plain]
    assert any(r.ok for r in res)


def test_target_hardware_and_bad_input():
    _, wl = resolve_layer("L8")
    small = make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim", "hw": {"BLOCK_OUT": 32}})
    assert small.space.knob("tile_co").options == (1, 2, 4, 8, 16)  # 512 / 32 = 16 blocks
    with pytest.raises(ValueError, match="unknown VTA hardware"):
        _ = make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim", "hw": {"BLOCKS": 3}}).space
    with pytest.raises(ValueError, match="power of two"):
        _ = make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim", "hw": {"BLOCK_IN": 12}}).space
    with pytest.raises(ValueError, match="dilation"):
        _ = make_task(Conv2d.make(1, 16, 9, 9, 16, 3, 1, 1, 2), "conv2d_nchw.vta-sim", VTA).space


def test_codesign_budgets_are_static_constraints_with_a_penalty():
    _, wl = resolve_layer("L8")
    task = make_task(wl, "conv2d_codesign.vta-sim", VTA)
    sp = task.space
    idx = sp.random_indices(4000, np.random.default_rng(0))
    within = sp.valid_mask(idx)
    structural = sp.valid_mask(idx, budgets=False)
    pen = sp.penalty(idx)
    assert (within <= structural).all() and (within < structural).any()
    over = structural & ~within
    assert (pen[over] > 0).all() and (pen[within] == 0).all()
    assert sp.groups().keys() == {"hardware", "scheduling", "mapping"}
    assert set(sp.groups()["mapping"]) == {"tile_h", "tile_w"}


def test_model_codesign_shares_one_design_across_layers():
    model = ModelConvs.of("alexnet")
    task = make_task(model, "model_codesign.vta-sim", VTA)
    sp = task.space
    assert sum(1 for k in sp.knobs if k.hardware) == 8  # one set of hardware knobs for all layers
    assert len(sp.knobs) == 8 + 7 * len(model.layers)
    m = VtaSimMeasurer()
    # random whole-model configs almost never run (every layer must fit); start from the optimum's neighbours
    opt = sp.from_json(exhaustive_optimum(task).values)
    cfgs = [opt, *sp.neighbors(opt)]
    results = m.measure([MeasureInput(task, c) for c in cfgs])
    ok = [(c, r) for c, r in zip(cfgs, results, strict=True) if r.ok]
    assert len(ok) >= 5
    assert any(not r.ok and "(layer " in r.message for r in results)  # a failing layer is named
    tmpl_layer = "conv2d_codesign.vta-sim"
    for c, r in ok[:5]:
        v = sp.values(c)
        hw = {k: v[k] for k in v if "." not in k}
        total = 0.0
        for i, (wl, count) in enumerate(zip(model.layers, model.counts, strict=True), 1):
            lt = make_task(wl, tmpl_layer, VTA)
            lv = {**hw, **{k.split(".", 1)[1]: x for k, x in v.items() if k.startswith(f"L{i}.")}}
            lr = m.measure([MeasureInput(lt, lt.space.from_json(lv))])[0]
            assert lr.ok
            total += count * lr.cost
        assert r.cost == pytest.approx(total, rel=1e-12)  # the model's time: same design in every layer
        assert sum(r.extra["layer_seconds"]) == pytest.approx(r.cost, rel=1e-12)  # the per-layer profile
    failed = next(r for r in results if not r.ok)
    assert None in failed.extra["layer_seconds"] and "none" in failed.extra["layer_violation"]
    # changing the shared design changes every layer's time
    c, _ = ok[0]
    vals = sp.to_json(c)
    vals["BUS_WIDTH"] = 128 if vals["BUS_WIDTH"] == 64 else 64
    d1 = task_instantiate(task, sp.to_json(c))
    d2 = task_instantiate(task, vals)
    assert all(a["load_cycles"] != b["load_cycles"] for a, b in zip(d1, d2, strict=True))


def task_instantiate(task, values):
    from tensortune.templates import get_template

    return get_template(task.template).instantiate(task.workload, values, task.target)


def test_model_exhaustive_optimum_beats_every_sampled_design():
    task = make_task(ModelConvs.of("alexnet"), "model_codesign.vta-sim", VTA)
    opt = exhaustive_optimum(task)
    sp = task.space
    cfg = sp.from_json(opt.values)
    assert sp.is_valid(cfg)
    r = VtaSimMeasurer().measure([MeasureInput(task, cfg)])[0]
    assert r.ok and r.cost == pytest.approx(opt.seconds, rel=1e-12)
    others = VtaSimMeasurer().measure([MeasureInput(task, c) for c in sp.sample(300, np.random.default_rng(2))])
    assert all(o.cost >= opt.seconds for o in others)


# --------------------------------------------------------------------------- MAPPO, confidence sampling, arco
TARGET = np.array([9, 2, 11, 5, 7, 1])


def _grouped_landscape():
    sp = SearchSpace([OptionKnob(f"k{i}", list(range(12)), group=("hardware", "scheduling", "mapping")[i % 3])
                      for i in range(6)])

    def score(idx):
        return -np.sqrt(np.sum((np.asarray(idx) - TARGET) ** 2, axis=1)).astype(float)

    return sp, score


def test_mappo_improves_the_reward():
    sp, score = _grouped_landscape()
    agent, rng = MAPPOExplorer(seed=0, n_walkers=64, max_steps=150), np.random.default_rng(0)
    for _ in range(6):
        agent.propose(sp, score, 16, set(), rng)
    assert len(agent._net.actors) == 3  # one actor per knob group, one critic
    first, last = agent.reward_history[0], agent.reward_history[-1]
    assert last > first + 0.2 * abs(first), agent.reward_history
    # the critic learned to value configs near the optimum above far ones
    near, far = np.array([TARGET]), np.array([[0, 11, 0, 11, 0, 11]])
    assert agent.values(sp, near)[0] > agent.values(sp, far)[0]


def test_mappo_state_roundtrip():
    sp, score = _grouped_landscape()
    a = MAPPOExplorer(seed=1, n_walkers=16, max_steps=20)
    a.propose(sp, score, 8, set(), np.random.default_rng(0))
    blob = a.state_bytes()
    b = MAPPOExplorer(seed=5)
    b.load_state_bytes(blob)
    idx = sp.random_indices(10, np.random.default_rng(1))
    assert np.allclose(a.values(sp, idx), b.values(sp, idx)) and b.rounds == 1


def test_confidence_sampling_keeps_high_value_configs_and_synthesises_the_rest():
    sp = SearchSpace([OptionKnob("a", list(range(10))), OptionKnob("b", list(range(10)))])
    cands = [Config((i, j)) for i in range(10) for j in range(10)]

    def value(space, idx):
        return (idx[:, 0] + idx[:, 1]).astype(float)  # high on the diagonal's far corner

    s = ConfidenceSampler(value)
    out = s.select([(c, 0.0) for c in cands], 20, sp, set(), np.random.default_rng(0))
    med = np.median([c.indices[0] + c.indices[1] for c in cands])
    kept = out[: s.last_kept]
    assert kept and all(c.indices[0] + c.indices[1] > med for c in kept)
    assert len(out) <= 20 and len(set(out)) == len(out)
    assert s.last_kept + s.last_synthesized == len(out)


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


def test_cli_vta_sim(tmp_path, capsys):
    from tensortune.cli.main import main

    db = str(tmp_path / "v.db")
    assert main(["tune", "--target", "vta-sim", "--layer", "resnet18:11", "--tuner", "autotvm", "--trials", "24",
                 "--plan-size", "8", "--db", db, "--no-progress"]) == 0
    assert main(["tune", "--target", "vta-sim", "--codesign", "model", "--model", "alexnet", "--tuner", "random",
                 "--trials", "16", "--db", db, "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "conv2d_nchw.vta-sim" in out and "model_codesign.vta-sim" in out
    recs = SQLiteStorage(db).records()
    assert any(r.error == ErrorKind.COMPILE_DEVICE and r.message.split(":")[0].endswith(("buffer", "hazard"))
               for r in recs)
    # bad input: one line, exit 2
    assert main(["tune", "--codesign", "layer", "--layer", "L6", "--db", db]) == 2
    assert main(["tune", "--target", "vta-sim", "--codesign", "model", "--layer", "L6", "--db", db]) == 2
    assert main(["tune", "--target", '{"kind": "vta-sim", "hw": {"BLOCK_IN": 12}}', "--layer", "L6", "--db", db]) == 2
    err = capsys.readouterr().err
    assert "--codesign needs --target vta-sim" in err and "power of two" in err


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
