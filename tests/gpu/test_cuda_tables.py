"""The CUDA ground-truth tables shipped in the package (measured on an H200 through the bundle and the
GPU runner): their facts, replay and the benchmark harness on them, and the import's refusals."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tensortune.bench.groundtruth import available_tables, load_table
from tensortune.bench.groundtruth_cuda import CUDA_LAYERS, CUDA_TABLE_DIR, cudnn_gflops, table_from_results
from tensortune.core.values import ErrorKind


@pytest.mark.parametrize("layer", CUDA_LAYERS)
def test_shipped_table_records_the_gpu_and_its_session(layer):
    gt = load_table(layer, CUDA_TABLE_DIR)
    m = gt.meta
    assert gt.is_gpu and gt.task.template == "conv2d_nchw.cuda-small"
    assert "H200" in m["machine"]["gpu"] or "H100" in m["machine"]["gpu"]
    assert m["machine"]["smi"]["driver_version"] and m["machine"]["smi_before"]["clocks.sm"]
    assert m["timing"]["repeat"] >= 3 and "CUDA events" in m["timing"]["cost"]
    assert cudnn_gflops(gt) > 0 and m["cudnn"]["tf32"]["cost"] > 0
    # one row per valid config; the block-limit violations were caught at build and never sent
    sp = gt.task.space
    assert gt.n == sum(sp.is_valid(sp.config(i)) for i in range(sp.size))
    ok = np.isfinite(gt.cost)
    assert ok.sum() > gt.n // 2 and np.all(gt.error[ok] == 0) and np.all(gt.error[~ok] != 0)
    assert set(np.unique(gt.error[~ok]).tolist()) <= {int(e) for e in ErrorKind}
    assert gt.device.startswith(m["machine"]["gpu"]) and gt.foreign() is None
    assert gt.optimum_gflops > 100


def test_gpu_tables_live_apart_from_the_cpu_ones():
    assert set(available_tables(CUDA_TABLE_DIR)) == set(CUDA_LAYERS)
    assert load_table("L8").task.template == "conv2d_nchw.llvm-small"


def test_bench_on_gpu_tables_runs_nothing_live(tmp_path):
    from tensortune.bench.harness import BenchConfig, run_bench
    from tensortune.bench.report import write_report

    cfg = BenchConfig(layers=["L8"], budgets=[16, 32], seeds=[0], recipes=["random", "autotvm"],
                      table_dir=str(CUDA_TABLE_DIR))
    res = run_bench(cfg, tmp_path, command="test", progress=False)
    assert not res.doc["drift"]  # nothing measured again on this CPU
    (pt,) = res.doc["pytorch"]
    assert pt["gflops"] == pytest.approx(cudnn_gflops(load_table("L8", CUDA_TABLE_DIR))) and "cuDNN" in pt["source"]
    assert {t["tuner"] for t in res.doc["traces"]} == {"random", "autotvm"}  # no MetaSchedule
    text = write_report(res.doc, tmp_path).read_text()
    assert "cuDNN fp32 GFLOP/s" in text and "GPU tables:" in text and (tmp_path / "L8.png").exists()


def test_import_refuses_incomplete_results(tmp_path):
    from tensortune.measure.cuda_bundle import FORMAT

    b, r = tmp_path / "b", tmp_path / "r"
    b.mkdir()
    r.mkdir()
    (b / "manifest.json").write_text(json.dumps({"format": FORMAT, "arch": "sm_90", "layers": {}}))
    with pytest.raises(ValueError, match="no layer L8"):
        table_from_results(b, r, "L8")
