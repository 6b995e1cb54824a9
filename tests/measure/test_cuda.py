"""CUDA conv2d template: builds with TVM's CUDA code generator without a GPU; block limits detected."""

import os

import numpy as np
import pytest

from tensortune.core.values import ErrorKind, MeasureInput
from tensortune.measure.tvm_jobs import build
from tensortune.templates import make_task
from tensortune.workloads import Conv2d

pytestmark = pytest.mark.slow

TARGET = {"kind": "cuda", "arch": "sm_90"}
GOOD = {"tile_f": [2, 1, 16, 1], "tile_y": [1, 1, 14, 1], "tile_x": [1, 1, 2, 7], "tile_rc": [4, 4], "tile_ry": [1, 3],
        "tile_rx": [3, 1], "auto_unroll_max_step": 512, "unroll_explicit": 1}


@pytest.fixture
def task():
    return make_task(Conv2d.make(1, 16, 14, 14, 32, 3, 1, 1), "conv2d_nchw.cuda", TARGET)


def test_knobs_are_the_papers(task):
    assert task.space.names == ["tile_f", "tile_y", "tile_x", "tile_rc", "tile_ry", "tile_rx", "auto_unroll_max_step",
                                "unroll_explicit"]
    assert len(task.space.knob("tile_f").options[0]) == 4  # block, vthread, thread, inner


def test_builds_without_gpu(task, tmp_path):
    out = build(task.spec(), GOOD, str(tmp_path / "k.so"))
    assert "error" not in out, out
    assert os.path.getsize(out["path"]) > 1000


def test_too_many_threads_detected(task, tmp_path):
    bad = dict(GOOD, tile_f=[1, 1, 32, 1], tile_x=[1, 1, 14, 1])  # 32 * 14 * 14 = 6272 threads per block
    out = build(task.spec(), bad, str(tmp_path / "k.so"))
    assert out["error"] == ErrorKind.COMPILE_DEVICE and "6272 threads per block" in out["message"]


def test_too_much_shared_memory_detected(tmp_path):
    from tensortune.workloads import resolve_layer

    t = make_task(resolve_layer("L6")[1], "conv2d_nchw.cuda", TARGET)
    cfg = {"tile_f": [16, 1, 16, 1], "tile_y": [1, 1, 14, 1], "tile_x": [7, 1, 2, 1], "tile_rc": [1, 128],
           "tile_ry": [1, 3], "tile_rx": [1, 3], "auto_unroll_max_step": 0, "unroll_explicit": 0}
    out = build(t.spec(), cfg, str(tmp_path / "k.so"))
    assert out["error"] == ErrorKind.COMPILE_DEVICE and "shared memory" in out["message"]
    assert "threads per block (limit" in out["message"]


def _has_gpu() -> bool:
    import tvm

    try:
        return bool(tvm.cuda(0).exist)
    except Exception:
        return False


@pytest.mark.skipif(not _has_gpu(), reason="needs a CUDA GPU (run on the device machine)")
def test_runs_and_checks_on_gpu(task):
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer

    cfgs = [task.space.from_json(GOOD)] + task.space.sample(7, np.random.default_rng(0))
    with TvmMeasurer(timing=TimingPolicy(repeat=3, min_repeat_ms=5)) as m:
        res = m.measure([MeasureInput(task, c) for c in cfgs])
    assert res[0].ok, res[0].message
    assert all(r.ok or r.error == ErrorKind.COMPILE_DEVICE for r in res), [r.message for r in res]
