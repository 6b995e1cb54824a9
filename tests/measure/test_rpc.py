"""Measurement through a TVM RPC tracker with two servers on loopback."""

import os
import signal
import socket
import subprocess
import sys
import time

import numpy as np
import pytest

from tensortune.core.values import MeasureInput
from tensortune.measure.tvm_measurer import RpcTracker, TimingPolicy, TvmMeasurer
from tensortune.templates import make_task

pytestmark = [pytest.mark.slow, pytest.mark.rpc]


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def tracker():
    port = _free_port()
    procs = [subprocess.Popen([sys.executable, "-m", "tvm.exec.rpc_tracker", "--host", "127.0.0.1", "--port", str(port),
                               "--port-end", str(port + 1)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)]
    time.sleep(2)
    for _ in range(2):
        sp = _free_port()
        procs.append(subprocess.Popen([sys.executable, "-m", "tvm.exec.rpc_server", "--tracker", f"127.0.0.1:{port}",
                                       "--key", "tt-test", "--host", "127.0.0.1", "--port", str(sp),
                                       "--port-end", str(sp + 20)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True))
    from tvm import rpc

    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            summary = rpc.connect_tracker("127.0.0.1", port).summary()
            free = sum(q.get("free", 0) for k, q in summary["queue_info"].items() if k == "tt-test")
            if free >= 2:
                break
        except Exception:
            pass
        time.sleep(0.5)
    else:
        pytest.fail("RPC servers did not register with the tracker")
    yield RpcTracker("127.0.0.1", port, "tt-test")
    for p in procs:  # the whole group: an RPC server's session workers would outlive it otherwise
        os.killpg(p.pid, signal.SIGKILL)
        p.wait()


def test_rpc_measure_two_servers(tracker, small_conv, cpu_target):
    task = make_task(small_conv, "conv2d_nchw.llvm", cpu_target)
    cfgs = task.space.sample(4, np.random.default_rng(0))
    with TvmMeasurer(rpc=tracker, rpc_parallel=2, timing=TimingPolicy(repeat=3, min_repeat_ms=5)) as m:
        res = m.measure([MeasureInput(task, c) for c in cfgs])
    assert len(res) == 4
    for r in res:
        assert r.ok, r.message
        assert len(r.costs) == 3


def test_rpc_wrong_answer_detected(tracker, cpu_target):
    from tensortune.workloads import Dense

    task = make_task(Dense.make(4, 32, 16), "faulty_dense.llvm", cpu_target)
    cfg = task.space.from_json({"fault": "wrong", "unroll_explicit": 0})
    with TvmMeasurer(rpc=tracker) as m:
        r = m.measure([MeasureInput(task, cfg)])[0]
    assert r.error.name == "WRONG_ANSWER"
