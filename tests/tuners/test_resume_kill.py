"""SIGKILL a real tuning process mid-run; the rerun loses and repeats nothing."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest

pytestmark = pytest.mark.slow

CMD = ["-m", "tensortune.cli.main", "tune", "--conv", "16,14,14,32,3,1,1", "--tuner", "autotvm", "--trials", "40",
       "--batch-size", "4", "--plan-size", "8", "--repeat", "2", "--min-repeat-ms", "2", "--no-progress", "--seed", "3"]


def _trials(db):
    try:
        c = sqlite3.connect(db, timeout=30)
        return c.execute("SELECT config_index, timestamp FROM records WHERE kind='trial' ORDER BY id").fetchall()
    except sqlite3.OperationalError:
        return []


def test_sigkill_mid_run_then_resume(db_path):
    p = subprocess.Popen([sys.executable, *CMD, "--db", db_path], start_new_session=True,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.time() + 300
    while time.time() < deadline and len(_trials(db_path)) < 12:
        time.sleep(0.2)
    os.killpg(p.pid, signal.SIGKILL)  # the tuner and its build/run workers
    p.wait()
    before = _trials(db_path)
    assert 12 <= len(before) < 40, "the kill must land mid-run"
    assert len(before) % 4 == 0  # whole batches only: a batch is one transaction
    r = subprocess.run([sys.executable, *CMD, "--db", db_path], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stderr
    assert f"resumed {len(before)} stored measurements" in r.stdout
    after = _trials(db_path)
    assert len(after) == 40
    assert after[: len(before)] == before  # nothing lost
    assert len({i for i, _ in after}) == 40  # nothing measured twice
