"""Fault injection: kill the tuner, hang its compiler and kernels, starve its memory and disk, kill its
RPC devices, run it twice, tamper with its files. Each test checks that nothing is lost, nothing is
stored twice, nothing junk is stored, no process of ours is left, and the user sees one clear line;
and adds its row to the suite's report (see conftest.py)."""

from __future__ import annotations

import os
import random
import resource
import signal
import socket
import subprocess
import sys
import textwrap
import threading
import time

import pytest
from faultkit import error_kinds, tagged_pids, trials

pytestmark = [pytest.mark.faults, pytest.mark.slow]

CONV = ["--conv", "16,14,14,32,3,1,1", "--repeat", "2", "--min-repeat-ms", "2", "--no-progress"]


def _dups(rows: list[tuple]) -> int:
    return len(rows) - len(set(rows))


def test_sigkill_tuner_20_times_then_resume(tmp_path, tagged, report):
    db = str(tmp_path / "k.db")
    cmd = ["tune", *CONV, "--tuner", "autotvm", "--trials", "48", "--batch-size", "4", "--plan-size", "8",
           "--seed", "5", "--db", db]
    rng = random.Random(0)
    lost = dups = left = kills = 0
    tmp = tmp_path / "tmp"  # the runs' temp dir: a SIGKILL leaves its build directory, the next run sweeps it
    tmp.mkdir()
    for _ in range(20):
        before = trials(db)
        if len(before) >= 44:
            break
        p = tagged.popen(cmd, env={"TMPDIR": str(tmp)})
        time.sleep(rng.uniform(0.5, 5.0))  # start-up, a build, a run, a commit: wherever it lands
        os.killpg(p.pid, signal.SIGKILL)  # the tuner's group; its workers are in sessions of their own
        p.wait()
        kills += 1
        left += len(tagged.left(5.0))
        after = trials(db)
        lost += sum(1 for t in before if t not in after)
        dups += _dups(after)
        assert after[: len(before)] == before, "a killed run lost stored trials"
    assert kills >= 10, "the run finished before enough kills landed"
    r = tagged.run(cmd, env={"TMPDIR": str(tmp)})
    assert r.returncode == 0, r.stderr
    final = trials(db)
    left += len(tagged.left(5.0))
    dups += _dups(final)
    report("SIGKILL of the tuner at random points, then resume", kills, 1, lost, dups, left,
           r.stdout.strip().splitlines()[-1] if r.stdout.strip() else "")
    assert len(final) == 48 and dups == 0 and lost == 0 and left == 0
    assert not [d.name for d in tmp.iterdir() if d.name.startswith("tensortune-build-")]  # swept, then removed


HUNG = textwrap.dedent("""
    import sys
    from tensortune.core.targets import default_cpu_target
    from tensortune.core.values import MeasureInput
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer
    from tensortune.templates import make_task
    from tensortune.workloads import Dense
    t = make_task(Dense.make(4, 32, 16), "faulty_dense.llvm", default_cpu_target())
    m = TvmMeasurer(run_timeout=600, timing=TimingPolicy(1, 1))
    print("measuring", flush=True)
    m.measure([MeasureInput(t, t.space.from_json({"fault": "hang", "unroll_explicit": 0}))])
""")


def _runner_busy(tag_pids: list[int]) -> bool:
    """A worker of ours is running (not sleeping): the hung kernel."""
    for pid in tag_pids:
        try:
            with open(f"/proc/{pid}/stat") as f:
                if f.read().rsplit(")", 1)[1].split()[0] == "R":
                    return True
        except OSError:
            pass
    return False


def test_sigkill_while_runner_in_hung_kernel(tagged, report):
    p = tagged.python(HUNG)
    deadline = time.time() + 120
    while time.time() < deadline and not _runner_busy([q for q in tagged_pids(tagged.tag) if q != p.pid]):
        time.sleep(0.2)
    assert _runner_busy([q for q in tagged_pids(tagged.tag) if q != p.pid]), "the hung kernel never started"
    time.sleep(1.0)
    os.kill(p.pid, signal.SIGKILL)  # the tuner only: its runner is in a C loop and never sees Python again
    p.wait()
    left = tagged.left(5.0)
    report("SIGKILL of the tuner while its runner is in a hung kernel", 1, 0, 0, 0, len(left),
           "(killed; runner gone with it)" if not left else f"left: {left}")
    assert not left, f"processes left 5 s after the tuner died: {left}"


def test_hanging_compiler_is_killed_with_its_group(tmp_path, tagged, report):
    cc = tmp_path / "hang-cc"
    cc.write_text("#!/bin/sh\nif [ \"$1\" = -dumpmachine ]; then echo x86_64-linux-gnu; exit 0; fi\nexec sleep 600\n")
    cc.chmod(0o755)
    db = str(tmp_path / "cc.db")
    r = tagged.run(["tune", *CONV, "--tuner", "random", "--trials", "4", "--batch-size", "4", "--build-timeout", "5",
                    "--db", db], env={"CXX": str(cc)})
    left = tagged.left(5.0)
    kinds = error_kinds(db)
    report("a C compiler that hangs (build timeout 5 s)", 4, int(r.returncode == 0), 0, _dups(trials(db)), len(left),
           r.stdout.strip().splitlines()[-2] if r.returncode == 0 else r.stderr)
    assert r.returncode == 0, r.stderr
    assert [k for k, _ in kinds] == [6] * 4  # BUILD_TIMEOUT, each; and the run ended normally
    assert not left, f"compiler processes left: {left}"


def test_kernels_that_hang_crash_or_allocate_past_the_limit(tmp_path, tagged, report):
    db = str(tmp_path / "f.db")
    r = tagged.run(["tune", "--dense", "4,32,16", "--template", "faulty_dense.llvm", "--tuner", "grid", "--trials", "12",
                    "--batch-size", "12", "--repeat", "2", "--min-repeat-ms", "2", "--run-timeout", "4",
                    "--memory-limit", "2048", "--no-progress", "--db", db])
    left = tagged.left(5.0)
    from tensortune.core.values import ErrorKind

    got = {}
    import sqlite3

    c = sqlite3.connect(db)
    for cfg, err in c.execute("SELECT config, error FROM records WHERE kind='trial'"):
        got.setdefault(__import__("json").loads(cfg)["fault"], set()).add(ErrorKind(err).name)
    report("kernels that hang, segfault, are wrong, or allocate 4 GiB under a 2 GiB limit", 12,
           int(r.returncode == 0), 0, _dups(trials(db)), len(left), "; ".join(f"{k}: {','.join(v)}" for k, v in sorted(got.items())))
    assert r.returncode == 0, r.stderr
    assert got == {"none": {"NONE"}, "wrong": {"WRONG_ANSWER"}, "segfault": {"RUNTIME"}, "hang": {"RUN_TIMEOUT"},
                   "instantiate": {"INSTANTIATION"}, "alloc": {"OUT_OF_MEMORY"}}
    assert not left


# ------------------------------------------------------------------------------------------- RPC
def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Rpc:
    def __init__(self, tagged) -> None:
        self.port = _free_port()
        self.key = "tt-fault"
        # the devices are not the tuner's processes: untagged, so the census counts only ours
        self.env = {k: v for k, v in tagged.env.items() if k != "TT_FAULT_TAG"}
        self.tracker = subprocess.Popen([sys.executable, "-m", "tvm.exec.rpc_tracker", "--host", "127.0.0.1", "--port",
                                         str(self.port), "--port-end", str(self.port + 1)], env=self.env,
                                        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        time.sleep(1.5)
        self.servers = []
        for _ in range(2):
            sp = _free_port()
            self.servers.append(subprocess.Popen(
                [sys.executable, "-m", "tvm.exec.rpc_server", "--tracker", f"127.0.0.1:{self.port}", "--key", self.key,
                 "--host", "127.0.0.1", "--port", str(sp), "--port-end", str(sp + 20)], env=self.env,
                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
        from tvm import rpc

        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                q = rpc.connect_tracker("127.0.0.1", self.port).summary()["queue_info"]
                if q.get(self.key, {}).get("free", 0) >= 2:
                    return
            except Exception:
                pass
            time.sleep(0.3)
        raise AssertionError("RPC servers did not register")

    @property
    def arg(self) -> str:
        return f"127.0.0.1:{self.port}:{self.key}"

    def kill(self, p: subprocess.Popen) -> None:
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except OSError:
            pass
        p.wait()

    def close(self) -> None:
        for p in [self.tracker, *self.servers]:
            self.kill(p)


@pytest.fixture
def rpc_pair(tagged):
    r = Rpc(tagged)
    yield r
    r.close()


@pytest.mark.rpc
def test_rpc_server_killed_mid_batch_costs_no_config(rpc_pair, tagged, cpu_target, report):
    import numpy as np

    from tensortune.core.values import MeasureInput
    from tensortune.measure.tvm_measurer import RpcTracker, TimingPolicy, TvmMeasurer
    from tensortune.templates import make_task
    from tensortune.workloads import Conv2d

    task = make_task(Conv2d.make(1, 16, 14, 14, 32, 3, 1, 1), "conv2d_nchw.llvm", cpu_target)
    cfgs = task.space.sample(8, np.random.default_rng(1))
    killer = threading.Timer(2.0, rpc_pair.kill, args=(rpc_pair.servers[0],))
    killer.start()
    with TvmMeasurer(rpc=RpcTracker("127.0.0.1", rpc_pair.port, rpc_pair.key), rpc_parallel=2,
                     timing=TimingPolicy(repeat=3, min_repeat_ms=300)) as m:
        res = m.measure([MeasureInput(task, c) for c in cfgs])
    killer.join()
    bad = [r.message for r in res if not r.ok]
    report("one of two RPC servers killed mid-batch", 1, 1, 0, 0, 0, f"{len(res) - len(bad)} of 8 measured")
    assert rpc_pair.servers[0].poll() is not None, "the server was not killed during the batch"
    assert not bad, bad


@pytest.mark.rpc
def test_rpc_tracker_killed_mid_run_stores_no_junk(rpc_pair, tmp_path, tagged, report):
    db = str(tmp_path / "rpc.db")
    p = tagged.popen(["tune", *CONV, "--tuner", "random", "--trials", "64", "--batch-size", "4", "--rpc", rpc_pair.arg,
                      "--db", db])
    deadline = time.time() + 120
    while time.time() < deadline and len(trials(db)) < 4:
        time.sleep(0.2)
    rpc_pair.kill(rpc_pair.tracker)
    out, err = p.communicate(timeout=300)
    kinds = error_kinds(db)
    left = tagged.left(5.0)
    junk = [m for k, m in kinds if k != 0]
    report("RPC tracker killed mid-run", 1, 0, 0, _dups(trials(db)), len(left), err.strip().splitlines()[-1])
    assert p.returncode == 3, err
    assert "measuring stopped" in err and "rerun to resume" in err
    assert len(kinds) < 64 and not junk, junk
    # a tracker that is down at the start: one line, nothing written
    db2 = str(tmp_path / "never.db")
    r = tagged.run(["tune", *CONV, "--trials", "4", "--rpc", rpc_pair.arg, "--db", db2])
    assert r.returncode == 2 and "cannot reach the RPC tracker" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert not os.path.exists(db2)
    report("RPC tracker down at start", 1, 0, 0, 0, len(tagged.left(5.0)), r.stderr)


# ------------------------------------------------------------------------------------------- leases
def test_two_processes_on_one_run(tmp_path, tagged, report):
    db = str(tmp_path / "two.db")
    # >= 30 s of timing: the second process must start (Python and TVM imported) while the first still runs; at
    # 60 ms a repeat (>= 7 s) a loaded machine let the first finish before it (stop 71, tests beside a benchmark)
    cmd = ["tune", "--conv", "16,14,14,32,3,1,1", "--repeat", "3", "--min-repeat-ms", "250", "--no-progress",
           "--tuner", "random", "--trials", "40", "--batch-size", "4", "--seed", "1", "--db", db]
    a = tagged.popen(cmd)
    deadline = time.time() + 120
    while time.time() < deadline and len(trials(db)) < 4:
        time.sleep(0.1)
    b = tagged.run(cmd)  # refused at once
    first_running = a.poll() is None
    c = tagged.popen([*cmd, "--wait"])  # waits, then resumes what a stored
    a.communicate(timeout=600)
    out_c, err_c = c.communicate(timeout=600)
    rows = trials(db)
    report("two processes on one run (one refused, one --wait)", 2, 2, 0, _dups(rows), len(tagged.left(5.0)),
           b.stderr.strip())
    assert b.returncode == 2 and "being tuned by another process" in b.stderr, \
        f"not refused; the first process was {'still' if first_running else 'no longer'} running: {b.stdout}"
    assert len(b.stderr.strip().splitlines()) == 1
    assert a.returncode == 0 and c.returncode == 0, err_c
    assert "resumed 40 stored measurements" in out_c
    assert len(rows) == 40 and _dups(rows) == 0


def test_measure_lock_serialises_two_measurers(tmp_path, tagged):
    code = textwrap.dedent("""
        import sys, time
        from tensortune.core.leases import measure_lock
        lk = measure_lock(); lk.acquire(wait=True)
        print(time.time(), flush=True); time.sleep(1.0); print(time.time(), flush=True)
        lk.release()
    """)
    env = {"TENSORTUNE_LOCK_DIR": str(tmp_path)}
    procs = [subprocess.Popen([sys.executable, "-c", code], env={**tagged.env, **env}, stdout=subprocess.PIPE, text=True)
             for _ in range(2)]
    spans = sorted(tuple(float(x) for x in p.communicate(timeout=60)[0].split()) for p in procs)
    assert spans[0][1] <= spans[1][0], f"the two holders overlapped: {spans}"


# ------------------------------------------------------------------------------------------- disk
def _fsize(limit: int):
    def pre() -> None:
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return pre


def test_full_disk_during_commit_then_resume(tmp_path, tagged, report):
    db = str(tmp_path / "full.db")
    cmd = ["tune", "--target", "vta-sim", "--layer", "resnet18:6", "--tuner", "random", "--trials", "600",
           "--batch-size", "8", "--no-progress", "--db", db]
    r = subprocess.run([sys.executable, "-m", "tensortune.cli.main", *cmd], env=tagged.env, capture_output=True,
                       text=True, timeout=600, preexec_fn=_fsize(96 * 1024))
    partial = trials(db)
    assert r.returncode == 2, r.stderr
    assert "cannot write database" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert 0 < len(partial) < 600 and len(partial) % 8 == 0  # whole batches only
    r2 = tagged.run(cmd)
    final = trials(db)
    report("disk full (file size limit) during a commit, then resume", 1, 1,
           sum(1 for t in partial if t not in final), _dups(final), len(tagged.left(5.0)), r.stderr)
    assert r2.returncode == 0, r2.stderr
    assert final[: len(partial)] == partial and len(final) == 600 and _dups(final) == 0


def test_full_disk_during_export(tmp_path, tagged, report):
    db = str(tmp_path / "e.db")
    assert tagged.run(["tune", "--target", "vta-sim", "--layer", "resnet18:6", "--tuner", "random", "--trials", "256",
                       "--no-progress", "--db", db]).returncode == 0
    out = tmp_path / "out.jsonl"
    out.write_text("old export\n")
    r = subprocess.run([sys.executable, "-m", "tensortune.cli.main", "export", "--db", db, "--out", str(out), "--force"],
                       env=tagged.env, capture_output=True, text=True, timeout=300, preexec_fn=_fsize(40 * 1024))  # room for SQLite's 32 KiB -shm, not the export
    leftovers = [p.name for p in tmp_path.iterdir() if ".tmp" in p.name]
    report("disk full (file size limit) during an export", 1, 0, 0, 0, len(tagged.left(5.0)), r.stderr)
    assert r.returncode == 2 and "nothing was written" in r.stderr and len(r.stderr.strip().splitlines()) == 1
    assert out.read_text() == "old export\n" and not leftovers


# ------------------------------------------------------------------------------------------- files
def test_tampered_task_file_is_refused(tmp_path, monkeypatch, report):
    import json

    import tvm
    from tvm import te

    from tensortune.models.tasks import ModelTask, save_task
    from tensortune.workloads.tir import TaskFileError, TirWorkload, function_key

    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path))

    def module(scale: float):
        a = te.placeholder((8, 8), name="a")
        b = te.compute((8, 8), lambda i, j: a[i, j] * scale, name="b")
        return tvm.IRModule({"main": te.create_prim_func([a, b]).with_attr("global_symbol", "main")})

    good, other = module(2.0), module(3.0)
    key = function_key(good)
    path = save_task(ModelTask("t", good, 1, 64.0, "elementwise", key, ["t"]), str(tmp_path))
    assert TirWorkload(key).mod is not None  # untouched: loads
    data = json.loads(open(path).read())
    data["mod"] = tvm.ir.save_json(other)  # swapped for another function
    open(path, "w").write(json.dumps(data))
    with pytest.raises(TaskFileError, match="was changed"):
        _ = TirWorkload(key).mod
    for bad in ("../../etc/passwd", "0123456789abcdeg", "0123456789abcdef/x"):
        with pytest.raises(ValueError, match="invalid TIR task key"):
            TirWorkload(bad)
    report("a tampered task file; task keys naming other paths", 4, 0, 0, 0, 0,
           "task file ... was changed: its function does not hash to its key")


def test_import_key_cannot_escape_the_task_dir(tmp_path, tagged):
    import json

    line = {"task_key": "tir_ms.llvm|tir:../../../tmp/x", "target_key": "{}", "config": {}, "config_index": "0",
            "costs": [0.001], "error": "NONE"}
    f = tmp_path / "evil.jsonl"
    f.write_text(json.dumps(line) + "\n")
    db = tmp_path / "i.db"
    r = tagged.run(["import", str(f), "--db", str(db)])
    assert r.returncode == 2 and "invalid TIR task key" in r.stderr and not db.exists()


def test_sigterm_cleans_up_workers_and_temporary_directories(tmp_path, tagged, report):
    db = str(tmp_path / "t.db")
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    p = tagged.popen(["tune", "--conv", "16,14,14,32,3,1,1", "--repeat", "3", "--min-repeat-ms", "60", "--no-progress",
                      "--tuner", "random", "--trials", "64", "--batch-size", "4", "--db", db], env={"TMPDIR": str(tmp)})
    deadline = time.time() + 120
    while time.time() < deadline and len(trials(db)) < 4:
        time.sleep(0.1)
    os.kill(p.pid, signal.SIGTERM)
    out, err = p.communicate(timeout=60)
    left = tagged.left(5.0)
    dirs = [d.name for d in tmp.iterdir() if d.name.startswith("tensortune-build-")]
    report("SIGTERM mid-run", 1, 0, 0, _dups(trials(db)), len(left), err.strip().splitlines()[-1])
    assert p.returncode == 143 and "terminated" in err and "rerun to resume" in err
    assert not left and not dirs, (left, dirs)
    assert len(trials(db)) % 4 == 0  # whole batches only
