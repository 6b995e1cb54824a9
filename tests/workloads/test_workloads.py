import numpy as np
import pytest

from tensortune.workloads import (
    EVAL_LAYERS,
    MODELS,
    Conv2d,
    Dense,
    model_tasks,
    resolve_layer,
    workload_from_key,
)


def test_conv_reference_matches_torch():
    import torch

    wl = Conv2d.make(1, 5, 11, 9, 7, (3, 2), (2, 1), (1, 0), (2, 1))
    inputs = wl.make_inputs(3)
    ref = torch.nn.functional.conv2d(torch.from_numpy(inputs[0]), torch.from_numpy(inputs[1]), stride=(2, 1),
                                     padding=(1, 0), dilation=(2, 1)).numpy()
    out = wl.reference(inputs)
    assert out.shape == ref.shape == wl.output_shape
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)


def test_dense_reference_and_flops():
    wl = Dense.make(4, 8, 3)
    d, w = wl.make_inputs(0)
    np.testing.assert_allclose(wl.reference([d, w]), d @ w.T, rtol=1e-5)
    assert wl.flops == 2 * 4 * 8 * 3


def test_eval_layers_match_notes():
    expect = {"L1": (3, 224, 64, 11, 55), "L2": (384, 13, 256, 3, 13), "L3": (3, 224, 64, 3, 224),
              "L4": (64, 224, 64, 3, 224), "L5": (128, 112, 128, 3, 112), "L6": (128, 28, 256, 3, 14),
              "L7": (256, 14, 512, 3, 7), "L8": (512, 7, 512, 3, 7)}
    for name, (c, hw, k, kern, out) in expect.items():
        _, wl = resolve_layer(name)
        assert (wl.in_channels, wl.height, wl.out_channels, wl.kernel[0], wl.out_hw[0]) == (c, hw, k, kern, out), name
    assert len(MODELS["alexnet"]) == 5 and len(MODELS["resnet18"]) == 11 and len(EVAL_LAYERS) == 8
    assert model_tasks("resnet18", [6])[0][1] == resolve_layer("L6")[1]


def test_flops_of_l6():
    _, wl = resolve_layer("L6")
    assert wl.flops == 2 * 256 * 14 * 14 * 128 * 9


def test_impossible_shapes_and_names():
    with pytest.raises(ValueError, match="does not fit"):
        Conv2d.make(1, 3, 4, 4, 8, 7, 1, 0)
    with pytest.raises(ValueError):
        Conv2d.make(1, 0, 4, 4, 8, 3)
    with pytest.raises(ValueError):
        Dense.make(1, -1, 3)
    with pytest.raises(ValueError, match="unknown model"):
        model_tasks("resnet50")
    with pytest.raises(ValueError):
        model_tasks("alexnet", [6])
    with pytest.raises(ValueError):
        resolve_layer("L9")


def test_key_roundtrip():
    for wl in [Conv2d.make(2, 3, 10, 12, 4, (3, 5), (1, 2), (0, 1), (1, 1)), Dense.make(1, 2, 3)]:
        assert workload_from_key(wl.key) == wl
