from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(__file__))


@pytest.fixture(scope="session")
def cpu_target() -> dict:
    from tensortune.core.targets import default_cpu_target

    return default_cpu_target()


@pytest.fixture
def small_conv():
    """A conv2d small enough to build in well under a second."""
    from tensortune.workloads import Conv2d

    return Conv2d.make(1, 16, 14, 14, 32, 3, 1, 1)


@pytest.fixture
def db_path(tmp_path):
    return str(tmp_path / "records.db")


def _our_workers() -> list[str]:
    """Worker processes this pytest process started and still has (ours and MetaSchedule's)."""
    me, out = str(os.getpid()), []
    for d in os.listdir("/proc"):
        if not d.isdigit():
            continue
        try:
            with open(f"/proc/{d}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            if fields[1] != me or fields[0] == "Z":
                continue
            with open(f"/proc/{d}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, IndexError):
            continue
        if "tensortune.measure.workers" in cmd or "popen_worker" in cmd:
            out.append(f"{d}: {cmd[:120]}")
    return out


@pytest.fixture(scope="session", autouse=True)
def no_worker_survives_the_suite():
    """The promise that no process of ours outlives its run, held for the whole test suite: every
    measurer a test opens must be closed (or its workers are still here at the end)."""
    yield
    import gc
    import time

    gc.collect()
    deadline = time.monotonic() + 10
    left = _our_workers()
    while left and time.monotonic() < deadline:
        time.sleep(0.2)
        left = _our_workers()
    assert not left, "worker processes left after the test suite:\n" + "\n".join(left)
