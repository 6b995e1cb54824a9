"""The VTA-like accelerator model: hand-checked constraints, and tiled functional execution against a direct convolution."""

import itertools

import numpy as np
import pytest

from tensortune.accel.vta import ConvShape, Violation, VtaHardware, evaluate
from tensortune.accel.vta_functional import BufferOverflow, direct_conv_int, execute, requantize
from tensortune.workloads import Conv2d

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
