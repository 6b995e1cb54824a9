"""Glimpse's CPU family: training from ground-truth tables of several targets, tuning a held-out target.

The tables here are the package's own tables relabelled to members of the family, with costs scaled per
core count and jittered per target: real spaces and a real cost structure (a fixture for behaviour; the
measured family is in results/glimpse-cpu)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from tensortune.bench.groundtruth import GroundTruth, load_table, table_path
from tensortune.templates import make_task

TARGETS = {f"{m} x{c}": {"kind": "llvm", "mcpu": m, "num-cores": c} for m in ("x86-64-v2", "haswell") for c in (1, 2)}


def family_tables(layers: tuple[str, ...] = ("L7",), seed: int = 0) -> dict[str, list[GroundTruth]]:
    rng = np.random.default_rng(seed)
    out: dict[str, list[GroundTruth]] = {}
    for name, tgt in TARGETS.items():
        tabs = []
        for layer in layers:
            gt = load_table(layer)
            task = make_task(gt.task.workload, gt.task.template, tgt, gt.name)
            cost = gt.cost * (2.0 if tgt["num-cores"] == 1 else 1.0) * rng.lognormal(0, 0.15, len(gt.cost))
            tabs.append(GroundTruth(task, {**gt.meta, "target": tgt}, gt.index, cost, gt.error, gt.build_s,
                                    gt.run_wall_s))
        out[name] = tabs
    return out


@pytest.fixture(scope="module")
def trained() -> tuple[dict[str, list[GroundTruth]], object]:
    from tensortune.transfer.glimpse import train_cpu

    tables = family_tables()
    models = train_cpu({k: v for k, v in tables.items() if k != "haswell x2"}, af_iterations=1, seed=0)
    return tables, models


def test_cpu_training_records_what_it_saw_and_round_trips(trained, tmp_path) -> None:
    from tensortune.transfer.glimpse import GlimpseModels

    tables, models = trained
    t = models.trained_on
    assert models.family == "cpu" and t["family"] == "cpu"
    assert t["designs"] == ["x86-64-v2 x1", "x86-64-v2 x2", "haswell x1"] and t["pairs"] == 3
    assert t["layers"] == "L7" and t["template"] == "conv2d_nchw.llvm-small"
    assert models.acquisition is not None and t["acquisition"]["iterations"] == 1
    models.save(str(tmp_path / "cpu.json"))
    back = GlimpseModels.load(str(tmp_path / "cpu.json"))
    gt = tables["haswell x2"][0]
    a = models.for_task(gt.task.space, gt.task.workload, gt.task.target, 16)
    b = back.for_task(gt.task.space, gt.task.workload, gt.task.target, 16)
    assert a.first_plan == b.first_plan and len(a.first_plan) == 16
    assert all(gt.task.space.is_valid(c) for c in a.first_plan)
    # the Blueprint of the held-out target differs from a training target's
    other = models.context(gt.task.workload, TARGETS["haswell x1"])
    assert not np.allclose(models.context(gt.task.workload, gt.task.target), other)


def test_cpu_models_refuse_targets_outside_the_family(trained) -> None:
    _, models = trained
    gt = load_table("L7")
    with pytest.raises(ValueError, match="not a member of Glimpse's CPU family"):
        models.context(gt.task.workload, {"kind": "llvm", "mcpu": "znver3", "num-cores": 2})
    with pytest.raises(ValueError, match="cpu family"):
        models.context(gt.task.workload, {"kind": "vta-sim"})


def test_train_cpu_rejects_unknown_or_missing_targets() -> None:
    from tensortune.transfer.glimpse import train_cpu

    tables = family_tables()
    with pytest.raises(ValueError, match="unknown CPU targets"):
        train_cpu(tables, exclude=["pentium x1"], af_iterations=0)
    with pytest.raises(ValueError, match="no training tables"):
        train_cpu(tables, exclude=list(tables), af_iterations=0)


def test_glimpse_tunes_a_held_out_cpu_target_by_replay(trained) -> None:
    """The whole recipe on the held-out target: every measurement a new config of the table, and it ends
    at least as close to the optimum as random search's median over seeds."""
    from tensortune.bench.traces import run_recipe
    from tensortune.measure.replay import ReplayMeasurer

    tables, models = trained
    gt = tables["haswell x2"][0]
    task = gt.task
    glimpse = models.for_task(task.space, task.workload, task.target, 8)
    with ReplayMeasurer([gt]) as m:
        trace, summ, _ = run_recipe("glimpse", task, m, 0, 40, mode="replay",
                                    options={"plan_size": 8, "budget": 40, "glimpse": glimpse})
        assert summ.trials == 40 and not m.duplicates()
    best = max(trace.gflops) / gt.optimum_gflops
    rand = []
    for seed in range(3):
        with ReplayMeasurer([gt]) as m:
            tr, _, _ = run_recipe("random", task, m, seed, 40, mode="replay")
        rand.append(max(tr.gflops) / gt.optimum_gflops)
    assert best >= float(np.median(rand)), (best, rand)


def test_cpu_tables_load_per_target_directory(tmp_path) -> None:
    from tensortune.transfer.glimpse import cpu_family, load_cpu_tables, table_dir

    tables = family_tables()
    by = {s.name: s for s in cpu_family()}
    for name in ("haswell x1", "haswell x2"):
        tables[name][0].save(table_path("L7", table_dir(str(tmp_path), by[name])))
    got = load_cpu_tables(str(tmp_path), ["L7"])
    assert sorted(got) == ["haswell x1", "haswell x2"]
    assert got["haswell x1"][0].task.target == TARGETS["haswell x1"]
    # a table in the wrong target's directory is refused, not trained on as the wrong hardware
    tables["haswell x1"][0].save(table_path("L7", table_dir(str(tmp_path), by["x86-64-v2 x1"])))
    with pytest.raises(ValueError, match="was measured for"):
        load_cpu_tables(str(tmp_path), ["L7"])


def test_cli_glimpse_on_cpu_says_what_is_missing(tmp_path, trained, capsys) -> None:
    from tensortune.cli.main import main

    assert main(["glimpse-train", "--family", "cpu", "--out", str(tmp_path / "g.json")]) == 2
    assert "--tables DIR" in capsys.readouterr().err
    assert main(["glimpse-train", "--family", "cpu", "--tables", str(tmp_path / "none"),
                 "--out", str(tmp_path / "g.json")]) == 2
    assert "add --measure" in capsys.readouterr().err
    assert main(["groundtruth", "--layers", "L7", "--db", str(tmp_path / "g.db"),
                 "--target", '{"kind": "llvm", "mcpu": "haswell", "num-cores": 64}']) == 2
    assert "cores" in capsys.readouterr().err
    assert main(["groundtruth", "--layers", "L7", "--db", str(tmp_path / "g.db"), "--target", "vta-sim"]) == 2
    assert "llvm target" in capsys.readouterr().err
    # tuning: a CPU file on a target outside the family, and a VTA file on a CPU target, are refused in one line
    _, models = trained
    models.save(str(tmp_path / "cpu.json"))
    base = ["tune", "--layer", "L7", "--template", "conv2d_nchw.llvm-small", "--tuner", "glimpse", "--trials", "16",
            "--db", str(tmp_path / "t.db")]
    # (not "--target llvm": this CPU is a member where LLVM names it znver4, as on a Zen 4 EPYC)
    outside = {"kind": "llvm", "mcpu": "znver3", "num-cores": 2}
    assert main([*base, "--target", json.dumps(outside), "--glimpse", str(tmp_path / "cpu.json")]) == 2
    assert "not a member of Glimpse's CPU family" in capsys.readouterr().err
    vta = json.loads((tmp_path / "cpu.json").read_text())
    vta["family"] = "vta"
    (tmp_path / "vta.json").write_text(json.dumps(vta))
    assert main([*base, "--target", json.dumps(TARGETS["haswell x2"]), "--glimpse", str(tmp_path / "vta.json")]) == 2
    assert "trained for the vta family" in capsys.readouterr().err


def test_leave_one_target_out_benchmark_and_its_cli_errors(tmp_path, capsys) -> None:
    """bench glimpse --family cpu: every held-out target of every seed gets its initial samples and one run
    per recipe, each with its measurements to 95% (or None) counted on the held-out table."""
    from tensortune.bench.glimpse_cpu import run
    from tensortune.cli.main import main

    tables = {k: v for k, v in family_tables().items() if k != "haswell x2"}
    res = run(tables, [0], trials=24, recipes=("autotvm", "glimpse"), af_iterations=1)
    assert {(r["design"], r["layer"]) for r in res["samples"]} == {(k, "L7") for k in tables}
    assert len(res["runs"]) == 2 * len(tables) and {r["recipe"] for r in res["runs"]} == {"autotvm", "glimpse"}
    for r in res["samples"]:
        assert 0 < r["random mean"] <= r["random best"] <= 1 and 0 < r["glimpse prior mean"] <= 1
    for r in res["runs"]:
        assert r["to_95"] is None or 1 <= r["to_95"] <= 24
        assert 0 < r["best"] <= 1 and r["invalid"] == 0
    with pytest.raises(ValueError, match="at least 3 targets"):
        run({k: tables[k] for k in list(tables)[:2]}, [0], af_iterations=1)
    assert main(["bench", "glimpse", "--family", "cpu", "--out", str(tmp_path)]) == 2
    assert "--tables DIR" in capsys.readouterr().err
    assert main(["bench", "glimpse", "--tables", str(tmp_path), "--out", str(tmp_path)]) == 2
    assert "--tables is for --family cpu" in capsys.readouterr().err
