"""Bad input: one line on stderr, exit status 2, and nothing created, changed or lost."""

from __future__ import annotations

import json
import os

import pytest

from tensortune.cli.main import main

pytestmark = pytest.mark.faults

VTA = ["tune", "--target", "vta-sim", "--layer", "resnet18:6", "--tuner", "random", "--no-progress"]
CONV = ["tune", "--conv", "16,14,14,32,3,1,1", "--no-progress"]


def _refused(capsys, argv: list[str], *needles: str) -> str:
    code = main(argv)
    err = capsys.readouterr().err
    assert code == 2, err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("tensortune: error:"), err
    for n in needles:
        assert n in err, err
    return err


def _db_with_records(path: str) -> None:
    import gc
    import sqlite3

    assert main([*VTA, "--trials", "256", "--db", path]) == 0
    gc.collect()  # the command's connection
    c = sqlite3.connect(path)
    c.execute("PRAGMA wal_checkpoint(TRUNCATE)")  # everything into the main file
    c.close()


def test_corrupt_database_with_a_valid_header(tmp_path, capsys, report):
    db = str(tmp_path / "c.db")
    _db_with_records(db)
    raw = bytearray(open(db, "rb").read())
    assert raw[:16] == b"SQLite format 3\0" and len(raw) > 3 * 4096
    for page in (1, 2, 3):  # damaged b-tree pages; the file header stays valid
        raw[page * 4096: page * 4096 + 1500] = os.urandom(1500)
    open(db, "wb").write(bytes(raw))
    before = open(db, "rb").read()
    capsys.readouterr()
    msg = _refused(capsys, ["best", "--db", db], "corrupt")
    _refused(capsys, [*VTA, "--trials", "64", "--db", db])
    assert open(db, "rb").read() == before
    report("a database with a valid header and a damaged page", 2, 0, 0, 0, 0, msg)


def test_empty_database_file(tmp_path, capsys):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    _refused(capsys, ["best", "--db", str(db)], "empty or not a tensortune database")
    _refused(capsys, ["export", "--db", str(db), "--out", str(tmp_path / "x.jsonl")], "empty")
    assert db.read_bytes() == b"" and not (tmp_path / "x.jsonl").exists()


@pytest.mark.parametrize("field,value", [("message", 5), ("seed", "x"), ("extra", []), ("timestamp", -1),
                                         ("config_index", "-3")])
def test_import_with_a_bad_field_creates_nothing(tmp_path, capsys, field, value):
    rec = {"task_key": "conv2d_nchw.llvm|conv", "target_key": "{}", "config": {}, "config_index": "0",
           "costs": [0.001], "error": "NONE", field: value}
    f = tmp_path / "r.jsonl"
    f.write_text(json.dumps(rec) + "\n")
    _refused(capsys, ["import", str(f), "--db", str(tmp_path / "i.db")], "r.jsonl:1")
    assert not (tmp_path / "i.db").exists()


def test_malformed_import_creates_nothing(tmp_path, capsys):
    f = tmp_path / "m.jsonl"
    f.write_text("{not json\n")
    _refused(capsys, ["import", str(f), "--db", str(tmp_path / "i.db")], "not valid JSON")
    assert not (tmp_path / "i.db").exists()


def test_export_into_a_missing_directory(tmp_path, capsys):
    db = str(tmp_path / "e.db")
    _db_with_records(db)
    capsys.readouterr()
    _refused(capsys, ["export", "--db", db, "--out", str(tmp_path / "nope" / "x.jsonl")], "does not exist")
    assert not (tmp_path / "nope").exists()


@pytest.mark.parametrize("name", ["x.db?mode=memory", "h#x.db", "p%20q.db"])
def test_database_paths_are_plain_file_paths(tmp_path, capsys, name):
    db = tmp_path / name
    assert main([*VTA, "--trials", "16", "--db", str(db)]) == 0
    assert db.is_file()
    assert sorted(p.name for p in tmp_path.iterdir() if not p.name.endswith(("-wal", "-shm", "-lease"))) == [name]
    from tensortune.storage import SQLiteStorage

    assert len(SQLiteStorage(str(db), readonly=True).records(kind="trial")) == 16  # kept, on disk


@pytest.mark.parametrize("args,needle", [
    (["--build-timeout", "0"], "--build-timeout"),
    (["--run-timeout", "0"], "--run-timeout"),
    (["--repeat", "10", "--min-repeat-ms", "5000"], "every config would time out"),
    (["--repeat", "0"], "--repeat"),
    (["--build-workers", "0"], "--build-workers"),
    (["--rpc", "localhost:notaport"], "--rpc takes host:port:key"),
    (["--rpc", "127.0.0.1:1:key"], "cannot reach the RPC tracker"),
    (["--memory-limit", "100"], "--memory-limit"),
    (["--early-stopping", "0"], "--early-stopping"),
    (["--batch-size", "0"], "--batch-size"),
])
def test_bad_run_options_write_nothing(tmp_path, capsys, args, needle):
    db = tmp_path / "o.db"
    _refused(capsys, [*CONV, "--trials", "4", *args, "--db", str(db)], needle)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("args,needle", [
    (["--trials", "0"], "--trials"),
    (["--trials", "8", "--early-stopping", "5"], "--early-stopping applies to one task"),
    (["--trials", "8", "--time-limit", "0"], "--time-limit"),
    (["--trials", "8", "--out", "/nonexistent-dir/r.json"], "does not exist"),
    (["--trials", "8", "--compare", "eager,bogus"], "--compare"),
])
def test_whole_model_options_checked_before_any_work(tmp_path, capsys, args, needle):
    db = tmp_path / "m.db"
    _refused(capsys, ["tune", "--model", "resnet18", *args, "--db", str(db)], needle)
    assert list(tmp_path.iterdir()) == []


def test_a_bug_is_not_reported_as_bad_input(monkeypatch):
    import tensortune.cli.main as cli

    def buggy(args):
        raise ValueError("an internal error")

    parser = cli.build_parser
    monkeypatch.setattr(cli, "build_parser", lambda: _with_func(parser(), buggy))
    with pytest.raises(ValueError, match="an internal error"):
        cli.main(["best", "--db", "x.db"])


def _with_func(p, fn):
    p.set_defaults(func=fn)
    sub = next(a for a in p._actions if a.__class__.__name__ == "_SubParsersAction")
    for sp in sub.choices.values():
        sp.set_defaults(func=fn)
    return p


def test_build_does_not_overwrite_the_file_its_metadata_would_take(tmp_path, capsys) -> None:
    """`build --out r.so` writes r.json beside the library: a tune report of that name (`tune --out r.json`)
    is refused, not overwritten, as the library itself is; a library named .json is refused."""
    db = tmp_path / "t.db"
    db.write_bytes(b"")  # checked for existence only: the refusals come before any work
    report = tmp_path / "r.json"
    report.write_text('{"latency_ms": {"tensortune": 5.5}}')
    argv = ["build", "--model", "resnet18", "--db", str(db)]
    _refused(capsys, [*argv, "--out", str(tmp_path / "r.so")], "r.json exists", "--force")
    assert json.loads(report.read_text()) == {"latency_ms": {"tensortune": 5.5}}
    _refused(capsys, [*argv, "--out", str(tmp_path / "lib.json")], "name the library NAME.so")
    assert sorted(os.listdir(tmp_path)) == ["r.json", "t.db"]
