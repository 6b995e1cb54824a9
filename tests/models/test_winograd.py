"""Winograd convolution on the blocked layout: the compute, the graph rewrite, and its template."""

from __future__ import annotations

import numpy as np
import pytest


@pytest.fixture
def task_env(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path / "tasks"))
    return tmp_path


def _direct_blocked(data: np.ndarray, kernel: np.ndarray, pad: int) -> np.ndarray:
    """A 3x3 stride-1 conv of NCHW[b]c data with an OIHW[b]i[x]o kernel, in NumPy (float64)."""
    _, cb, h, w, b = data.shape
    ob, _, _, _, _, x = kernel.shape
    d = data.transpose(0, 1, 4, 2, 3).reshape(1, cb * b, h, w).astype(np.float64)
    k = kernel.transpose(0, 5, 1, 4, 2, 3).reshape(ob * x, cb * b, 3, 3).astype(np.float64)
    dp = np.pad(d, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
    oh, ow = h + 2 * pad - 2, w + 2 * pad - 2
    out = np.zeros((ob * x, oh, ow))
    for r in range(3):
        for s in range(3):
            out += np.einsum("kc,chw->khw", k[:, :, r, s], dp[0, :, r:r + oh, s:s + ow])
    return out.reshape(1, ob, x, oh, ow).transpose(0, 1, 3, 4, 2)


@pytest.mark.parametrize("m,h,pad", [(2, 10, 1), (4, 9, 1), (4, 12, 0), (2, 7, 0)])
def test_winograd_conv_matches_a_direct_convolution(m, h, pad) -> None:
    """Both tile sizes, outputs that are and are not multiples of the tile, with and without padding:
    TVM's default lowering of weight transform + Winograd conv equals the direct convolution."""
    import tvm
    from tvm import te

    from tensortune.models.winograd import weight_transform, winograd_conv

    cb, b, ob, x = 2, 8, 3, 8
    data = te.placeholder((1, cb, h, h, b), name="data")
    kern = te.placeholder((ob, cb, 3, 3, b, x), name="kernel")
    u = weight_transform(kern, m)
    out = winograd_conv(data, u, m, (pad, pad))
    f = tvm.compile(te.create_prim_func([data, kern, out]), target="llvm")
    rng = np.random.default_rng(0)
    d = rng.standard_normal((1, cb, h, h, b)).astype("float32")
    k = rng.standard_normal((ob, cb, 3, 3, b, x)).astype("float32")
    ref = _direct_blocked(d, k, pad)
    got = tvm.runtime.tensor(np.zeros(ref.shape, "float32"))
    f(tvm.runtime.tensor(d), tvm.runtime.tensor(k), got)
    err = np.abs(got.numpy() - ref).max() / np.abs(ref).max()
    assert err < 1e-5, err


def test_winograd_rejects_what_it_does_not_cover() -> None:
    from tvm import te

    from tensortune.models.winograd import weight_transform, winograd_conv

    with pytest.raises(ValueError, match="3x3"):
        weight_transform(te.placeholder((1, 1, 5, 5, 8, 8), name="k"), 2)
    u = weight_transform(te.placeholder((1, 1, 3, 3, 8, 8), name="k"), 2)
    with pytest.raises(ValueError, match="batch 1"):
        winograd_conv(te.placeholder((2, 1, 8, 8, 8), name="d"), u, 2, (1, 1))
    with pytest.raises(ValueError, match="tile size"):
        winograd_conv(te.placeholder((1, 1, 8, 8, 8), name="d"), u, 4, (1, 1))


@pytest.mark.slow
def test_resnet18_rewrite_covers_the_3x3_stride_1_convs_and_folds_the_weight_transforms(task_env) -> None:
    """--winograd auto: ResNet-18's 13 blocked 3x3 stride-1 convs become Winograd functions with their
    batch norm, residual and ReLU fused; the stem (7x7), the strided and the 1x1 convs stay direct; no
    weight transform is left to run per inference; off (and NCHW) leaves every conv direct."""
    import tvm

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.importer import load_model
    from tensortune.models.layout import apply_layout
    from tensortune.models.tasks import _calls, extract_tasks, save_task
    from tensortune.templates import get_template
    from tensortune.templates.cpu_winograd import winograd_shape
    from tensortune.workloads.tir import TirWorkload, task_dir

    target = default_cpu_target()
    base = load_model("resnet18")
    with pytest.raises(ValueError, match="unknown winograd"):
        apply_layout(base, "auto", target, "always")
    m = apply_layout(base, "NCHW16c", target, "auto")
    assert m.extra["winograd"] == "auto"
    fused, tasks = extract_tasks(m, tvm.target.Target(target))
    wino = [t for t in tasks if "winograd" in t.name]
    direct = [t for t in tasks if "conv2d_NCHWc" in t.name]
    assert sum(t.weight for t in wino) == 13 and sum(t.weight for t in direct) == 7
    alphas = set()
    for t in wino:
        assert t.kind == "conv2d" and ("relu" in t.name or "add" in t.name)  # the epilogue is fused
        save_task(t, task_dir())
        wl = TirWorkload(t.key)
        shp = winograd_shape(wl)
        assert get_template("conv2d_winograd_fused.llvm").supports(wl)
        assert not get_template("conv2d_nchwc_fused.llvm").supports(wl)
        alphas.add((shp["alpha"], shp["p"]))
    # F(4, 3) on the 56x56 and 28x28 outputs (14^2 and 7^2 tiles), F(2, 3) on 14x14 and 7x7 (7^2, 4^2)
    assert alphas == {(6, 196), (6, 49), (4, 49), (4, 16)}, alphas
    assert not any("winograd_weight" in c for c in _calls(fused))  # folded at build time
    for choice, layout in (("off", "NCHW16c"), ("auto", "NCHW")):
        _, plain = extract_tasks(apply_layout(base, layout, target, choice), tvm.target.Target(target))
        assert not any("winograd" in t.name for t in plain)


@pytest.mark.slow
def test_every_config_of_the_winograd_template_is_exact_and_parallel(task_env) -> None:
    """Configs of the template on a fused Winograd function (conv + residual add + ReLU, a 9x9 output
    with F(4, 3): a partial last tile) compute what TVM's default lowering of the same function computes,
    and every stage runs in a parallel loop; the space keeps the register block within the registers."""
    import tvm

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.importer import import_torch
    from tensortune.models.layout import apply_layout
    from tensortune.models.tasks import extract_tasks, save_task
    from tensortune.templates import get_template
    from tensortune.workloads.tir import TirWorkload, task_dir

    torch = pytest.importorskip("torch")

    class Block(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            torch.manual_seed(0)
            self.conv = torch.nn.Conv2d(32, 32, 3, padding=1)

        def forward(self, x):
            return torch.relu(self.conv(x) + x)

    target = default_cpu_target()
    m = apply_layout(import_torch(Block().eval(), (1, 32, 9, 9), "block"), "NCHW16c", target, "auto")
    _, tasks = extract_tasks(m, tvm.target.Target(target))
    (task,) = [t for t in tasks if "winograd" in t.name]
    save_task(task, task_dir())
    wl = TirWorkload(task.key)
    tmpl = get_template("conv2d_winograd_fused.llvm")
    space = tmpl.space(wl)
    assert space.size > 10
    rng = np.random.default_rng(0)
    args = [rng.standard_normal([int(d) for d in shape]).astype(dtype) for shape, dtype in wl.arg_specs]
    ref_f = tvm.compile(wl.mod, target="llvm")
    ref = [tvm.runtime.tensor(a) for a in args]
    ref_f(*ref)
    expect = ref[-1].numpy()
    assert np.abs(expect).max() > 0
    for cfg in space.sample(6, rng):
        v = space.values(cfg)
        assert v["tile_p"][1] * v["tile_k"][1] <= 28
        mod = tmpl.instantiate(wl, v)
        script = mod.script()
        assert script.count("T.parallel") >= 3, v  # input transform, product, output transform + epilogue
        f = tvm.compile(mod, target=tvm.target.Target(target))
        got = [tvm.runtime.tensor(a) for a in args]
        f(*got)
        np.testing.assert_allclose(got[-1].numpy(), expect, rtol=1e-4, atol=1e-4 * np.abs(expect).max())
    others = [t for t in tasks if t is not task]
    assert others
    for t in others:  # the layout transforms around the conv are not Winograd functions
        save_task(t, task_dir())
        assert not tmpl.supports(TirWorkload(t.key))




def test_metaschedule_as_a_peer_tunes_the_direct_conv_graph(task_env) -> None:
    """--compare metaschedule on a Winograd run: MetaSchedule gets the same layout without the Winograd
    rewrite (what its own pipeline would tune); on a run without Winograd it gets the run's own tasks."""
    import tvm

    from helpers import TINY
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import ModelTuneResult
    from tensortune.models.importer import load_model
    from tensortune.models.layout import apply_layout
    from tensortune.models.pipeline import metaschedule_graph
    from tensortune.models.tasks import extract_tasks

    src = task_env / "tiny.py"
    src.write_text(TINY)
    target = default_cpu_target()
    base = load_model(f"{src}:Tiny")
    for choice in ("auto", "off"):
        m = apply_layout(base, "NCHW8c", target, choice)
        _, tasks = extract_tasks(m, tvm.target.Target(target))
        res = ModelTuneResult([], None, tasks, 0.0, 0)
        ms_model, ms_tasks = metaschedule_graph(m, target, res)
        names = [t.name for t in ms_tasks]
        if choice == "off":
            assert ms_model is m and ms_tasks is tasks
        else:
            assert any("winograd" in t.name for t in tasks)
            assert not any("winograd" in n for n in names) and sum("conv2d_NCHWc" in n for n in names) == 2
            assert "direct_mod" not in ms_model.extra and ms_model.extra["layout"] == "NCHW8c"


def test_a_winograd_task_has_the_shape_features_of_its_convolution(task_env) -> None:
    """Transfer reads a Winograd task as the 3x3 stride-1 conv it computes (channels, output size, kernel,
    stride, padding), as it reads the direct conv of the same layer: both tile sizes, an output
    that is not a multiple of the tile. Without this, every Winograd task's shape was its FLOPs alone."""
    import tvm

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.importer import import_torch
    from tensortune.models.layout import apply_layout
    from tensortune.models.tasks import extract_tasks, save_task
    from tensortune.transfer.features import SHAPE_COLUMNS, shape_features
    from tensortune.workloads.tir import TirWorkload, task_dir

    torch = pytest.importorskip("torch")
    target = default_cpu_target()
    conv_cols = [i for i, c in enumerate(SHAPE_COLUMNS) if c != "log2_flops"]
    for h, k in ((9, 32), (28, 48)):  # F(2, 3) with a partial tile; F(4, 3)
        torch.manual_seed(0)
        net = torch.nn.Sequential(torch.nn.Conv2d(32, k, 3, padding=1), torch.nn.ReLU()).eval()
        base = import_torch(net, (1, 32, h, h), "one")
        feats = {}
        for choice in ("off", "auto"):
            _, tasks = extract_tasks(apply_layout(base, "NCHW16c", target, choice), tvm.target.Target(target))
            (task,) = [t for t in tasks if t.kind == "conv2d"]
            assert ("winograd" in task.name) == (choice == "auto")
            save_task(task, task_dir())
            feats[choice] = shape_features(TirWorkload(task.key))
        assert feats["auto"][conv_cols].tolist() == feats["off"][conv_cols].tolist()
        assert feats["auto"][SHAPE_COLUMNS.index("log2_c")] == 5
        assert feats["auto"][SHAPE_COLUMNS.index("log2_h")] == pytest.approx(np.log2(h))
