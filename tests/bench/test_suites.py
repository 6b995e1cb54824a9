"""The VTA/ARCO, ML2Tuner and ZigZag benchmark suites: run through the CLI at tiny budgets, every run
recorded as a trace in a resumable results.json, one report writer."""

import json

import pytest

from tensortune.accel.vta import ConvShape
from tensortune.bench.zigzag import LAYERS, ours
from tensortune.cli.main import main
from tensortune.workloads.layer_tables import MODELS


def test_vta_arco_suite_records_every_run_and_resumes(tmp_path, capsys):
    out = tmp_path / "vta"
    args = ["bench", "vta-arco", "--models", "alexnet", "--trials", "8", "--model-trials", "12", "--plan-size", "8",
            "--seeds", "0", "--out", str(out), "--no-progress"]
    assert main(args) == 0
    doc = json.loads((out / "results.json").read_text())
    n_layers = len(MODELS["alexnet"])
    runs = {(t["tuner"], t["layer"]) for t in doc["traces"]}
    assert len(doc["traces"]) == 3 * n_layers + 2 == len(runs)
    assert {("arco", "alexnet:all"), ("arco-hier", "alexnet:all")} <= runs
    for t in doc["traces"]:
        assert len(t["gflops"]) == (12 if t["layer"].endswith(":all") else 8) == len(t["wall"])
    for row in doc["layers"]:  # co-design can only widen the space: its optimum is at least the software one
        assert row["co_opt_gflops"] >= row["sw_opt_gflops"] > 0
    report = (out / "report.md").read_text()
    assert "| alexnet:1 |" in report and "| alexnet | arco-hier |" in report
    assert (out / "model_codesign.png").stat().st_size > 0 and (out / "throughput.png").stat().st_size > 0
    before = (out / "results.json").read_text()
    assert main(args) == 0  # everything is done: the rerun measures nothing and keeps every trace
    assert json.loads((out / "results.json").read_text())["traces"] == json.loads(before)["traces"]
    assert main([*args[:5], "4", *args[6:]]) == 2  # other settings: refuses to overwrite another run's file
    assert "other settings" in capsys.readouterr().err


def test_ml2tuner_suite_on_the_vta_model(tmp_path):
    out = tmp_path / "ml2"
    assert main(["bench", "ml2tuner", "--vta-layers", "resnet18:2", "--cpu-layers", "", "--vta-trials", "40",
                 "--seeds", "0", "--n-test", "20", "--out", str(out), "--no-progress"]) == 0
    doc = json.loads((out / "results.json").read_text())
    assert sorted(t["tuner"] for t in doc["traces"]) == sorted(["autotvm", "ml2tuner", "chameleon", "chameleon+v"])
    for t in doc["traces"]:
        assert len(t["extra"]["configs"]) == len(set(t["extra"]["configs"])) == len(t["gflops"]) == 40
    (row,) = doc["layers"]
    assert row["n_test"] > 0 and set(row["rmse_a_over_p"]) == {f"{t['tuner']}/0" for t in doc["traces"]}
    report = (out / "report.md").read_text()
    assert "| resnet18:2 | vta-sim |" in report and (out / "curves.png").exists()


def test_ml2tuner_suite_rejects_unknown_layers(tmp_path, capsys):
    assert main(["bench", "ml2tuner", "--vta-layers", "resnet18:99", "--out", str(tmp_path)]) == 2
    assert "resnet18" in capsys.readouterr().err and not (tmp_path / "results.json").exists()


def test_zigzag_suite_our_side_and_missing_dependency(tmp_path, capsys):
    for i in LAYERS:  # our best schedule never beats the ideal (every MAC on the 16x16 array, no stalls)
        layer = ConvShape.of(MODELS["resnet18"][i - 1])
        ideal = layer.ops / 2 / 256
        assert ideal <= ours(layer) < 1.5 * ideal
    try:
        import zigzag  # noqa: F401
    except ImportError:
        assert main(["bench", "zigzag", "--out", str(tmp_path)]) == 2
        assert "ZigZag is not installed" in capsys.readouterr().err
    else:
        pytest.skip("zigzag-dse is installed; its cross-check is a benchmark, not a unit test")
