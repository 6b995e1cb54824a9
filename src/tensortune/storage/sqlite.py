"""SQLite storage (standard library), WAL mode, one transaction per measured batch.

Safe for several tuner processes on one file: every write is a short ``BEGIN IMMEDIATE``
transaction and readers never block writers (WAL). A trial is stored at most once per (run, task,
target, config) (a unique index); a run holds a lease while it tunes (see ``lease.py``), and the
``runs`` table keeps the fingerprint of its search space and measurement protocol, so a resumed run
cannot silently mix spaces or protocols. The path is a plain file path, never an SQLite URI.
"""

from __future__ import annotations

import json
import os
import sqlite3
import time
import urllib.parse
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tensortune.core.leases import LeaseBusy, run_lease
from tensortune.core.values import ErrorKind
from tensortune.storage.records import TuningRecord

SCHEMA_VERSION = 2

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS records (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_key TEXT NOT NULL,
    task_name TEXT NOT NULL DEFAULT '',
    target_key TEXT NOT NULL,
    config_index TEXT NOT NULL,
    config TEXT NOT NULL,
    costs TEXT NOT NULL,
    cost REAL,
    error INTEGER NOT NULL,
    message TEXT NOT NULL DEFAULT '',
    tuner TEXT NOT NULL DEFAULT '',
    run_id TEXT NOT NULL DEFAULT '',
    seed INTEGER NOT NULL DEFAULT 0,
    kind TEXT NOT NULL DEFAULT 'trial',
    flops INTEGER NOT NULL DEFAULT 0,
    build_seconds REAL NOT NULL DEFAULT 0,
    run_seconds REAL NOT NULL DEFAULT 0,
    timestamp REAL NOT NULL,
    extra TEXT NOT NULL DEFAULT '{}',
    UNIQUE (run_id, task_key, target_key, config_index, kind, timestamp)
);
CREATE INDEX IF NOT EXISTS records_task ON records (task_key, target_key);
CREATE INDEX IF NOT EXISTS records_run ON records (run_id);
CREATE TABLE IF NOT EXISTS checkpoints (
    run_id TEXT NOT NULL, name TEXT NOT NULL, data BLOB NOT NULL, updated REAL NOT NULL,
    PRIMARY KEY (run_id, name)
);
CREATE TABLE IF NOT EXISTS runs (
    run_id TEXT PRIMARY KEY, space TEXT NOT NULL, protocol TEXT NOT NULL, created REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS records_trial_once ON records (run_id, task_key, target_key, config_index)
    WHERE kind = 'trial';
"""

_COLUMNS = ("task_key", "task_name", "target_key", "config_index", "config", "costs", "cost", "error", "message",
            "tuner", "run_id", "seed", "kind", "flops", "build_seconds", "run_seconds", "timestamp", "extra")


class StorageError(Exception):
    """The database cannot be used (corrupt, not ours, unwritable, newer schema)."""


class RunBusyError(StorageError):
    """Another process is tuning the same run."""


class RunMismatchError(StorageError):
    """A run is resumed with another search space or measurement protocol than it was stored with."""


def _uri(path: Path, readonly: bool) -> str:
    """An SQLite URI naming exactly ``path``: '?', '#' and '%' in the name are a file name's characters."""
    q = urllib.parse.quote(str(path.absolute()), safe="/")
    return f"file:{q}?mode=ro" if readonly else f"file:{q}?mode=rwc"


class _NoLease:
    """The lease of a run in an in-memory database: only this process can see it."""

    def release(self) -> None:
        pass

    def __enter__(self) -> _NoLease:
        return self

    def __exit__(self, *exc: object) -> None:
        pass


class SQLiteStorage:
    """Records in the SQLite file at ``path``; ``":memory:"`` (as the string, not a path to a file of
    that name) keeps them in this process's memory (benchmarks that replay)."""

    def __init__(self, path: str | os.PathLike[str], readonly: bool = False) -> None:
        self.memory = isinstance(path, str) and path == ":memory:"
        self.path = Path(path)
        if self.memory:
            self._db = sqlite3.connect(":memory:", isolation_level=None)
            self._check_and_init(False)
            return
        if readonly and not self.path.exists():
            raise StorageError(f"database {self.path} does not exist")
        if not readonly and self.path.parent and not self.path.parent.exists():
            raise StorageError(f"cannot create database {self.path}: directory {self.path.parent} does not exist")
        if self.path.exists() and not self.path.is_file():
            raise StorageError(f"database {self.path} is not a file")
        try:
            self._db = sqlite3.connect(_uri(self.path, readonly), uri=True, timeout=60.0, isolation_level=None)
            self._db.execute("PRAGMA busy_timeout = 60000")
            self._check_and_init(readonly)
        except sqlite3.DatabaseError as e:
            raise self._error(e) from None

    def _error(self, e: sqlite3.Error, writing: bool = False) -> StorageError:
        msg = str(e)
        if "not a database" in msg or "malformed" in msg or "corrupt" in msg:
            return StorageError(f"{self.path} is not a tensortune database (corrupt or not SQLite: {msg})")
        if "readonly" in msg or "unable to open" in msg or "permission" in msg.lower():
            return StorageError(f"cannot write database {self.path}: {msg}")
        if writing and "disk" in msg and ("full" in msg or "I/O" in msg):
            return StorageError(f"cannot write database {self.path}: {msg}; nothing of the failed batch was stored")
        if "disk" in msg and ("full" in msg or "I/O" in msg):
            return StorageError(f"cannot use database {self.path}: {msg} (is its disk full?)")
        return StorageError(f"database {self.path}: {msg}")

    def _check_and_init(self, readonly: bool) -> None:
        tables = {r[0] for r in self._db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
        if tables and "meta" not in tables:
            raise StorageError(f"{self.path} is an SQLite database but not a tensortune one")
        version = SCHEMA_VERSION
        if "meta" in tables:
            row = self._db.execute("SELECT value FROM meta WHERE key='schema_version'").fetchone()
            if row is None or int(row[0]) > SCHEMA_VERSION:
                raise StorageError(f"{self.path} has schema version {row and row[0]}; this tensortune reads {SCHEMA_VERSION}")
            version = int(row[0])
            # a damaged page surfaces here, once, as one clear error, not mid-run as a traceback
            bad = self._db.execute("PRAGMA quick_check").fetchone()[0]
            if bad != "ok":
                raise StorageError(f"{self.path} is corrupt (SQLite quick_check: {bad}); restore it from a copy or "
                                   "export what is readable with the sqlite3 shell's .recover")
        elif readonly:
            raise StorageError(f"{self.path} is empty or not a tensortune database (no records table)")
        if readonly:
            return
        if not self.memory:
            self._db.execute("PRAGMA journal_mode = WAL")
        self._db.execute("PRAGMA synchronous = NORMAL")
        with self._tx():
            if version < 2 and "records" in tables:
                # schema 1 allowed one trial twice (two processes on a run); keep the first as the trial
                # and the later copies as 'duplicate' records, so the unique index can exist
                self._db.execute("UPDATE records SET kind='duplicate' WHERE kind='trial' AND id NOT IN (SELECT MIN(id) "
                                 "FROM records WHERE kind='trial' GROUP BY run_id, task_key, target_key, config_index)")
            for stmt in _SCHEMA.strip().split(";"):
                if stmt.strip():
                    self._db.execute(stmt)
            self._db.execute("INSERT OR REPLACE INTO meta VALUES ('schema_version', ?)", (str(SCHEMA_VERSION),))

    class _Tx:
        def __init__(self, db: sqlite3.Connection) -> None:
            self.db = db

        def __enter__(self) -> sqlite3.Connection:
            self.db.execute("BEGIN IMMEDIATE")
            return self.db

        def __exit__(self, exc_type: object, *rest: object) -> None:
            self.db.execute("ROLLBACK" if exc_type else "COMMIT")

    def _tx(self) -> _Tx:
        return SQLiteStorage._Tx(self._db)

    # ------------------------------------------------------------------ writes
    def add(self, records: Iterable[TuningRecord]) -> int:
        """Insert a batch in one transaction (committed, durable on return); exact duplicates skipped."""
        rows = [self._row(r) for r in records]
        if not rows:
            return 0
        try:
            with self._tx() as db:
                before = db.total_changes
                db.executemany(f"INSERT OR IGNORE INTO records ({','.join(_COLUMNS)}) VALUES ({','.join('?' * len(_COLUMNS))})", rows)
                return db.total_changes - before
        except sqlite3.DatabaseError as e:
            raise self._error(e, writing=True) from None

    # ------------------------------------------------------------------ runs
    def lease(self, run_id: str, wait: bool | float = False) -> Any:
        """Hold ``run_id`` for this process (a context manager); :class:`RunBusyError` if another
        process holds it and ``wait`` is False (or its seconds ran out)."""
        if self.memory:
            return _NoLease()
        lock = run_lease(self.path, run_id)
        try:
            lock.acquire(wait)
        except LeaseBusy:
            raise RunBusyError(f"run {run_id} in {self.path} is being tuned by another process; wait for it "
                               "(or pass --wait), or tune another run (--seed, --tuner or another --db)") from None
        except OSError as e:
            raise StorageError(f"cannot take the lease of run {run_id} ({self.path}-lease): {e}") from None
        return lock

    def check_run(self, run_id: str, space: str, protocol: dict[str, Any]) -> None:
        """Register the run's space fingerprint and measurement protocol, or check them against the
        stored ones; :class:`RunMismatchError` names what changed. An empty protocol (a measurer that
        states none, such as a replay) matches any."""
        proto = json.dumps(protocol, sort_keys=True)
        row = self._db.execute("SELECT space, protocol FROM runs WHERE run_id=?", (run_id,)).fetchone()
        if row is None:
            try:
                with self._tx() as db:
                    db.execute("INSERT OR IGNORE INTO runs VALUES (?, ?, ?, ?)", (run_id, space, proto, time.time()))
            except sqlite3.DatabaseError as e:
                raise self._error(e) from None
            return
        if row[0] != space:
            raise RunMismatchError(f"run {run_id} in {self.path} was tuned on another search space (the template "
                                   "or its space changed since); its stored configs would decode to other "
                                   "configs. Tune into another --db (or with another --seed)")
        if row[1] == "{}" and protocol:  # a run begun by a measurer that states no protocol: adopt this one
            try:
                with self._tx() as db:
                    db.execute("UPDATE runs SET protocol=? WHERE run_id=?", (proto, run_id))
            except sqlite3.DatabaseError as e:
                raise self._error(e) from None
            return
        if protocol and row[1] != proto:
            old, new = json.loads(row[1]), protocol
            diff = ", ".join(f"{k}: {old.get(k)!r} then, {new.get(k)!r} now" for k in sorted(set(old) | set(new))
                             if old.get(k) != new.get(k))
            raise RunMismatchError(f"run {run_id} in {self.path} was measured with another protocol ({diff}); "
                                   "rerun with the same options, or tune into another --db")

    @staticmethod
    def _row(r: TuningRecord) -> tuple:
        cost = r.cost if r.ok else None
        return (r.task_key, r.task_name, r.target_key, str(r.config_index), json.dumps(r.config),
                json.dumps(list(r.costs)), cost, int(r.error), r.message, r.tuner, r.run_id, int(r.seed), r.kind,
                int(r.flops), float(r.build_seconds), float(r.run_seconds), float(r.timestamp or time.time()),
                json.dumps(r.extra, sort_keys=True))

    def save_checkpoint(self, run_id: str, name: str, data: bytes) -> None:
        with self._tx() as db:
            db.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?)", (run_id, name, data, time.time()))

    def load_checkpoint(self, run_id: str, name: str) -> bytes | None:
        row = self._db.execute("SELECT data FROM checkpoints WHERE run_id=? AND name=?", (run_id, name)).fetchone()
        return None if row is None else bytes(row[0])

    # ------------------------------------------------------------------ reads
    @staticmethod
    def _record(row: sqlite3.Row | tuple) -> TuningRecord:
        d = dict(zip(_COLUMNS, row[1:], strict=True))
        return TuningRecord(
            task_key=d["task_key"], task_name=d["task_name"], target_key=d["target_key"],
            config_index=int(d["config_index"]), config=json.loads(d["config"]),
            costs=tuple(json.loads(d["costs"])), error=ErrorKind(d["error"]), message=d["message"],
            tuner=d["tuner"], run_id=d["run_id"], seed=d["seed"], kind=d["kind"], flops=d["flops"],
            build_seconds=d["build_seconds"], run_seconds=d["run_seconds"], timestamp=d["timestamp"],
            extra=json.loads(d["extra"]))

    def records(self, task_key: str | None = None, target_key: str | None = None, run_id: str | None = None,
                kind: str | None = None) -> list[TuningRecord]:
        """Records in insertion order, filtered by whatever is given."""
        where, args = [], []
        for col, val in (("task_key", task_key), ("target_key", target_key), ("run_id", run_id), ("kind", kind)):
            if val is not None:
                where.append(f"{col} = ?")
                args.append(val)
        sql = f"SELECT id,{','.join(_COLUMNS)} FROM records"
        if where:
            sql += " WHERE " + " AND ".join(where)
        try:
            return [self._record(r) for r in self._db.execute(sql + " ORDER BY id", args)]
        except sqlite3.DatabaseError as e:
            raise self._error(e) from None

    def count(self, run_id: str, kind: str = "trial") -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM records WHERE run_id=? AND kind=?", (run_id, kind)).fetchone()[0])

    def count_task(self, task_key: str, target_key: str) -> int:
        """How many records a task has (all runs, all kinds)."""
        return int(self._db.execute("SELECT COUNT(*) FROM records WHERE task_key=? AND target_key=?",
                                    (task_key, target_key)).fetchone()[0])

    def tasks(self) -> list[tuple[str, str, str]]:
        """(task_key, target_key, task_name) of every task with records."""
        rows = self._db.execute("SELECT task_key, target_key, MAX(task_name) FROM records GROUP BY task_key, target_key "
                                "ORDER BY MIN(id)")
        return [(a, b, c) for a, b, c in rows]

    def best(self, task_key: str, target_key: str, k: int = 1, run_id: str | None = None) -> list[TuningRecord]:
        """The k fastest configs of a task. A config that was re-measured is ranked by its latest
        re-measurement (the honest figure), otherwise by its trial; a config with any wrong-answer
        record (a trial, or a failed check inside a built model) is left out."""
        latest: dict[int, TuningRecord] = {}
        recs = self.records(task_key, target_key, run_id)
        wrong = {r.config_index for r in recs if r.error == ErrorKind.WRONG_ANSWER}  # never a best, however fast
        for r in recs:
            if not r.ok or r.config_index in wrong:
                continue
            prev = latest.get(r.config_index)
            if prev is None or (r.kind == "remeasure") or (prev.kind == "trial" and r.cost < prev.cost):
                latest[r.config_index] = r
        return sorted(latest.values(), key=lambda r: r.cost)[:k]

    # ------------------------------------------------------------------ JSON lines
    def export_jsonl(self, path: str | os.PathLike[str]) -> int:
        """Write every record as JSON lines, atomically: the file appears whole or not at all (a full
        disk leaves no partial file); OSError says why it could not be written."""
        recs = self.records()
        tmp = Path(str(path) + f".{os.getpid()}.tmp")
        try:
            with open(tmp, "w") as f:
                for r in recs:
                    f.write(r.dumps() + "\n")
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, path)
        except BaseException:
            tmp.unlink(missing_ok=True)
            raise
        return len(recs)

    def import_jsonl(self, path: str | os.PathLike[str]) -> int:
        """Import every record of a JSON-lines file, all or nothing; ValueError names the bad line."""
        return self.add(read_jsonl(path))

    def close(self) -> None:
        self._db.close()


def read_jsonl(path: str | os.PathLike[str]) -> list[TuningRecord]:
    """Every record of an exported JSON-lines file; ValueError names the first bad line."""
    recs = []
    with open(path, encoding="utf-8", errors="strict") as f:
        try:
            lines = list(f)
        except UnicodeDecodeError as e:
            raise ValueError(f"{path}: not UTF-8 text ({e.reason})") from None
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            recs.append(TuningRecord.from_json(json.loads(line)))
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}:{n}: not valid JSON ({e.msg})") from None
        except (ValueError, TypeError) as e:
            raise ValueError(f"{path}:{n}: {e}") from None
    return recs
