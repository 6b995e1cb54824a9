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
