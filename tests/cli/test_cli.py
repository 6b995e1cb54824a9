"""The command line: bad input gets one line and exit 2 with nothing written; a real small run."""

import json
import subprocess
import sys

import pytest

from tensortune.cli.main import main


@pytest.mark.parametrize("argv,msg", [
    (["tune", "--model", "resnet50"], "unknown model"),
    (["tune", "--layer", "L9"], "unknown layer"),
    (["tune", "--layer", "L6", "--tuner", "nope"], "unknown tuner"),
    (["tune", "--conv", "3,5,5,8,7,1,0"], "does not fit"),
    (["tune", "--conv", "3,5,5"], "--conv takes"),
    (["tune", "--layer", "L6", "--trials", "0"], "at least 1"),
    (["tune", "--model", "resnet18", "--tasks", "12"], "tasks 1..11"),
    (["tune", "--layer", "L6", "--target", "fpga"], "unknown target"),
    # a whole-model option on a run that tunes its tasks one by one is refused, not ignored
    (["tune", "--layer", "L6", "--round-size", "8"], "--round-size applies to a whole-model run"),
    (["tune", "--conv", "16,14,14,32,3,1,1", "--winograd", "off"], "--winograd applies to a whole-model run"),
    (["tune", "--model", "resnet18", "--tasks", "6", "--confirm-share", "0.1"], "--confirm-share applies to a whole"),
    (["tune", "--layer", "L6", "--confirm-top", "1"], "--confirm-top must be 0 (off) or at least 2"),
    (["compare", "--layer", "L6", "--tuners", "random,nope"], "unknown tuner"),
])
def test_bad_input_one_line_exit_2_nothing_written(tmp_path, capsys, argv, msg):
    db = tmp_path / "x.db"
    rc = main([*argv, "--db", str(db)])
    err = capsys.readouterr().err
    assert rc == 2
    assert msg in err and err.count("\n") == 1 and "Traceback" not in err
    assert not db.exists()


def test_unwritable_and_corrupt_database(tmp_path, capsys):
    assert main(["tune", "--layer", "L6", "--db", str(tmp_path / "no" / "x.db")]) == 2
    assert "directory" in capsys.readouterr().err
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"garbage" * 500)
    before = bad.read_bytes()
    assert main(["tune", "--layer", "L6", "--trials", "2", "--db", str(bad)]) == 2
    assert "not a tensortune database" in capsys.readouterr().err
    assert bad.read_bytes() == before
    assert main(["best", "--db", str(bad)]) == 2


def test_argparse_errors_are_one_line():
    r = subprocess.run([sys.executable, "-m", "tensortune.cli.main", "tune", "--trials", "abc"], capture_output=True, text=True)
    assert r.returncode == 2 and r.stderr.count("\n") == 1


def test_malformed_import_and_export_overwrite(tmp_path, capsys):
    db = tmp_path / "x.db"
    f = tmp_path / "in.jsonl"
    f.write_text('{"task_key": "t"}\n')
    assert main(["import", str(f), "--db", str(db)]) == 2
    assert "nothing imported" in capsys.readouterr().err
    out = tmp_path / "exists.jsonl"
    out.write_text("keep me")
    assert main(["export", "--db", str(db), "--out", str(out)]) == 2
    assert out.read_text() == "keep me"


def test_summary_line_splits_this_calls_time_and_names_resumed_measurements():
    from helpers import landscape_task
    from tensortune.cli.tune_cmds import summary_line
    from tensortune.tuners.loop import TuneSummary

    fresh = TuneSummary(landscape_task(), "autotvm", "r", 0, trials=20, errors=1, wall_seconds=10.0,
                        measure_seconds=7.0, search_seconds=2.0, storage_seconds=0.5, stop_reason="budget spent")
    line = summary_line(fresh)
    assert line.startswith(f"{fresh.task.name}: 20 measurements, 1 failed; 10.0 s: measuring 7.0 s")
    assert "search and cost model 2.0 s, storing 0.5 s, the rest 0.5 s; budget spent" in line
    assert "resumed" not in line
    # a finished run's rerun: nothing measured in this call, its time is restoring the search
    rerun = TuneSummary(landscape_task(), "autotvm", "r", 0, trials=20, resumed=20, wall_seconds=1.0,
                        search_seconds=0.9, stop_reason="budget spent")
    line = summary_line(rerun)
    assert "20 measurements (0 in this call, 20 resumed), 0 failed; 1.0 s: measuring 0.0 s" in line
    assert "search and cost model 0.9 s" in line and "the rest 0.1 s" in line and "% of wall time" not in line


@pytest.mark.slow
def test_tune_best_export_import_compare(tmp_path, capsys):
    db, db2 = tmp_path / "a.db", tmp_path / "b.db"
    common = ["--conv", "16,14,14,32,3,1,1", "--trials", "12", "--batch-size", "6", "--plan-size", "6",
              "--repeat", "2", "--min-repeat-ms", "2", "--no-progress"]
    assert main(["tune", *common, "--tuner", "autotvm", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "best configuration per task" in out and "GFLOP/s" in out
    assert main(["best", "--db", str(db)]) == 0
    assert "conv2d_nchw.llvm" in capsys.readouterr().out
    jl = tmp_path / "r.jsonl"
    assert main(["export", "--db", str(db), "--out", str(jl)]) == 0
    lines = jl.read_text().splitlines()
    assert len(lines) == 13  # 12 trials + 1 re-measure of the incumbent
    assert main(["import", str(jl), "--db", str(db2)]) == 0
    assert "imported 13 new records" in capsys.readouterr().out
    res = tmp_path / "res"
    assert main(["compare", *common, "--tuners", "random,autotvm", "--seeds", "0,1", "--db", str(tmp_path / "c.db"),
                 "--out", str(res)]) == 0
    out = capsys.readouterr().out
    assert "random" in out and "autotvm" in out and "oneDNN" in out
    pngs = list(res.glob("*.png"))
    assert len(pngs) == 1 and pngs[0].stat().st_size > 10_000
    data = json.loads(next(res.glob("*.json")).read_text())
    assert len(data["runs"]["autotvm"]) == 2 and len(data["runs"]["random"][0]["curve"]) == 12


@pytest.mark.slow
def test_tune_one_layer_confirms_its_best_configs(tmp_path, capsys):
    from tensortune.storage import SQLiteStorage

    db = tmp_path / "c.db"
    argv = ["tune", "--conv", "16,14,14,32,3,1,1", "--trials", "12", "--batch-size", "6", "--plan-size", "6",
            "--repeat", "2", "--min-repeat-ms", "2", "--no-progress", "--confirm-top", "12", "--confirm-rounds", "2",
            "--db", str(db)]  # every config of the run confirmed: none left to overtake the confirmed ones
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "best 12 configs measured again in 2 interleaved rounds" in out and "not counted in --trials" in out
    st = SQLiteStorage(str(db), readonly=True)
    recs = st.records()
    assert sum(r.kind == "trial" for r in recs) == 12  # the budget is the search's alone
    confirmed = [r for r in recs if r.kind == "remeasure" and (r.extra or {}).get("confirm_rounds") == 2]
    ok = {r.config_index for r in recs if r.kind == "trial" and r.ok}
    assert len(ok) >= 2 and {r.config_index for r in confirmed} == ok and len(confirmed) == len(ok)  # one pass
    assert all(len(r.costs) == 2 * 2 for r in confirmed)  # 2 rounds x 2 repeats pooled into one record
    (task_key, target_key, _), = st.tasks()
    best = st.best(task_key, target_key, k=1)[0]
    assert best.kind == "remeasure" and best.config_index in {r.config_index for r in confirmed}
    # the confirmation replaces the loop's single re-measure of its incumbent: every remeasure is the confirmation's
    assert all(r in confirmed for r in recs if r.kind == "remeasure")
    # a rerun on the same database finds the run's budget spent and its best configs confirmed: nothing measured
    assert main(argv) == 0
    out = capsys.readouterr().out
    assert "confirmed: nothing" in out
    assert "12 measurements (0 in this call, 12 resumed)" in out and "measuring 0.0 s" in out
    assert len(SQLiteStorage(str(db), readonly=True).records()) == len(recs)


def test_reports_record_the_command_from_the_script_and_from_python_m(monkeypatch):
    from tensortune.cli.bench_cmds import _command_line

    for argv0 in ("/venv/bin/tensortune", "/src/tensortune/cli/main.py"):
        monkeypatch.setattr("sys.argv", [argv0, "bench", "glimpse", "--recipes", "autotvm,glimpse/mean", "--out", "a b"])
        assert _command_line() == "tensortune bench glimpse --recipes autotvm,glimpse/mean --out 'a b'"
    monkeypatch.setattr("sys.argv", ["/usr/bin/pytest", "-q"])
    assert _command_line() == ""
