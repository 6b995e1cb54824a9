"""Fixtures of the fault-injection suite and its report: each test adds a row (fault, times injected,
runs completed, records lost, records duplicated, processes left, the message the user saw); the
table is printed after the run, and written as JSON to ``$TENSORTUNE_FAULT_REPORT`` when that is set."""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass

import pytest
from faultkit import Tagged, kill_tagged

ROWS: list[dict] = []


@dataclass
class FaultRow:
    fault: str
    injected: int
    runs_completed: int
    lost: int
    duplicated: int
    left_behind: int
    message: str


@pytest.fixture
def tagged():
    t = Tagged()
    yield t
    kill_tagged(t.tag)  # whatever a failed test left; the assertions have already counted it


@pytest.fixture
def report():
    def add(fault: str, injected: int, completed: int, lost: int, duplicated: int, left: int, message: str) -> None:
        ROWS.append(asdict(FaultRow(fault, injected, completed, lost, duplicated, left, message.strip()[:160])))
    return add


def pytest_terminal_summary(terminalreporter, exitstatus, config):  # noqa: ARG001
    if not ROWS:
        return
    tr = terminalreporter
    tr.section("fault injection")
    tr.write_line("| fault | injected | runs completed | records lost | records duplicated | processes left | message the user saw |")
    tr.write_line("|---|---|---|---|---|---|---|")
    for r in ROWS:
        msg = r["message"].replace("|", "/").replace("\n", " ")
        tr.write_line(f"| {r['fault']} | {r['injected']} | {r['runs_completed']} | {r['lost']} | {r['duplicated']} | "
                      f"{r['left_behind']} | {msg} |")
    path = os.environ.get("TENSORTUNE_FAULT_REPORT")
    if path:
        with open(path, "w") as f:
            json.dump(ROWS, f, indent=1)
