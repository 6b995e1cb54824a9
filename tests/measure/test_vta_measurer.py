"""The VTA model's spaces (layer, co-design, whole model) and its measurer: violations, vectorised = scalar, budgets, the exhaustive oracle."""


import numpy as np
import pytest

from tensortune.accel.vta import ConvShape, evaluate, evaluate_one
from tensortune.bench.vta_oracle import exhaustive_optimum
from tensortune.core.values import ErrorKind, MeasureInput
from tensortune.measure.vta_measurer import VtaSimMeasurer
from tensortune.space import Config
from tensortune.templates import make_task
from tensortune.workloads import Conv2d, ModelConvs, resolve_layer

VTA = {"kind": "vta-sim"}


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
