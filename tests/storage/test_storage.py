import json
import sqlite3
import subprocess
import sys
import textwrap

import pytest

from tensortune.core.values import ErrorKind
from tensortune.storage import SCHEMA_VERSION, SQLiteStorage, StorageError, TuningRecord


def rec(i, cost=1e-3, run="r1", kind="trial", error=ErrorKind.NONE, t=None):
    return TuningRecord(task_key="t", target_key="cpu", config={"a": i}, config_index=i,
                        costs=() if error != ErrorKind.NONE else (cost, cost * 1.1, cost * 0.9),
                        error=error, message="" if error == ErrorKind.NONE else "boom", tuner="x", run_id=run,
                        seed=0, kind=kind, flops=10**9, timestamp=t if t is not None else 1000.0 + i)


def test_wal_schema_and_roundtrip(db_path):
    s = SQLiteStorage(db_path)
    assert s.add([rec(1), rec(2, 2e-3), rec(3, error=ErrorKind.RUN_TIMEOUT)]) == 3
    db = sqlite3.connect(db_path)
    assert db.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()[0] == str(SCHEMA_VERSION)
    got = s.records("t", "cpu")
    assert [r.config_index for r in got] == [1, 2, 3]
    assert got[0].costs == (1e-3, 1e-3 * 1.1, 1e-3 * 0.9) and got[0].cost == 1e-3
    assert got[2].error == ErrorKind.RUN_TIMEOUT and not got[2].ok
    assert s.count("r1") == 3 and s.count("r2") == 0


def test_best_prefers_remeasurement(db_path):
    s = SQLiteStorage(db_path)
    s.add([rec(1, 1e-3), rec(2, 2e-3), rec(3, 3e-3)])
    assert [r.config_index for r in s.best("t", "cpu", 2)] == [1, 2]
    s.add([rec(1, 5e-3, kind="remeasure", t=5000.0)])  # the lucky trial did not hold up
    best = s.best("t", "cpu", 3)
    assert [r.config_index for r in best] == [2, 3, 1]
    assert best[2].kind == "remeasure"


def test_checkpoints(db_path):
    s = SQLiteStorage(db_path)
    assert s.load_checkpoint("r", "agent") is None
    s.save_checkpoint("r", "agent", b"\x00\x01")
    s.save_checkpoint("r", "agent", b"\x02")
    assert s.load_checkpoint("r", "agent") == b"\x02"


def test_export_import_roundtrip(db_path, tmp_path):
    s = SQLiteStorage(db_path)
    s.add([rec(i) for i in range(5)] + [rec(9, error=ErrorKind.WRONG_ANSWER)])
    out = tmp_path / "r.jsonl"
    assert s.export_jsonl(out) == 6
    s2 = SQLiteStorage(tmp_path / "b.db")
    assert s2.import_jsonl(out) == 6
    assert s2.import_jsonl(out) == 0  # exact duplicates are skipped
    assert [r.to_json() for r in s2.records()] == [r.to_json() for r in s.records()]


@pytest.mark.parametrize("line,why", [
    ("{not json", "not valid JSON"),
    (json.dumps({"task_key": "t"}), "missing field"),
    (json.dumps({"task_key": "t", "target_key": "c", "config": {}, "config_index": "1", "costs": [-1], "error": "NONE"}), "costs"),
    (json.dumps({"task_key": "t", "target_key": "c", "config": {}, "config_index": "1", "costs": [], "error": "NOPE"}), "error kind"),
])
def test_malformed_import_imports_nothing(db_path, tmp_path, line, why):
    s = SQLiteStorage(db_path)
    good = rec(1).dumps()
    f = tmp_path / "bad.jsonl"
    f.write_text(good + "\n" + line + "\n")
    with pytest.raises(ValueError, match=why) as e:
        s.import_jsonl(f)
    assert ":2:" in str(e.value)
    assert s.records() == []


def test_corrupt_and_foreign_files(tmp_path):
    bad = tmp_path / "bad.db"
    bad.write_bytes(b"this is not a database at all" * 100)
    before = bad.read_bytes()
    with pytest.raises(StorageError, match="not a tensortune database"):
        SQLiteStorage(bad)
    assert bad.read_bytes() == before
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x (y)")
    with pytest.raises(StorageError, match="not a tensortune one"):
        SQLiteStorage(other)
    with pytest.raises(StorageError, match="does not exist"):
        SQLiteStorage(tmp_path / "missing.db", readonly=True)


def test_two_processes_write_one_database(db_path):
    SQLiteStorage(db_path)
    code = textwrap.dedent(f"""
        import sys
        from tensortune.storage import SQLiteStorage, TuningRecord
        s = SQLiteStorage({db_path!r})
        w = int(sys.argv[1])
        for b in range(40):
            s.add([TuningRecord(task_key="t", target_key="c", config={{"i": i}}, config_index=w * 100000 + b * 10 + i,
                                costs=(1e-3,), run_id=f"w{{w}}", timestamp=float(b * 10 + i)) for i in range(10)])
    """)
    procs = [subprocess.Popen([sys.executable, "-c", code, str(w)]) for w in (1, 2)]
    assert all(p.wait(120) == 0 for p in procs)
    s = SQLiteStorage(db_path)
    assert s.count("w1") == 400 and s.count("w2") == 400
    assert sqlite3.connect(db_path).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_trial_is_stored_once_per_run_task_target_config(db_path):
    st = SQLiteStorage(db_path)
    assert st.add([rec(1)]) == 1
    assert st.add([rec(1, t=2000.0)]) == 0  # the same trial again, later
    assert st.add([rec(1, kind="remeasure", t=2001.0)]) == 1
    assert st.add([rec(1, run="r2")]) == 1  # another run may measure it
    assert len(st.records(run_id="r1", kind="trial")) == 1


def test_schema_1_database_is_migrated_keeping_duplicates_apart(db_path):
    st = SQLiteStorage(db_path)
    st.add([rec(1), rec(2)])
    st.close()
    c = sqlite3.connect(db_path)  # make it a schema-1 file holding one trial twice (two processes, before leases)
    c.execute("DROP INDEX records_trial_once")
    c.execute("DROP TABLE runs")
    row = c.execute("SELECT * FROM records WHERE config_index='1'").fetchone()
    c.execute(f"INSERT INTO records VALUES (NULL{', ?' * (len(row) - 1)})", (*row[1:-2], row[-2] + 1, row[-1]))
    c.execute("UPDATE meta SET value='1' WHERE key='schema_version'")
    c.commit()
    c.close()
    st = SQLiteStorage(db_path)
    assert [r.config_index for r in st.records(kind="trial")] == [1, 2]
    assert [r.config_index for r in st.records(kind="duplicate")] == [1]
    assert len(st.records()) == 3  # nothing lost
