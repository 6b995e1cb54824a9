"""``results.json`` of a benchmark run, shared by every suite: its settings, the command, run traces and
named sections of suite-specific items. Written atomically after every finished unit; a rerun with the
same settings resumes (units already there are skipped), so an interrupted benchmark loses at most the
unit in flight. Another run's file is never overwritten."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from tensortune.bench.traces import RunTrace


class BenchInputError(ValueError):
    """A benchmark cannot run as asked (another run's results file, a missing optional dependency):
    the command reports it as one line, exit status 2."""


def commands_of(doc: dict[str, Any], default: str = "(command not recorded)") -> str:
    """The command that started a results file, and those that resumed or extended it since (each once),
    joined with `` ; then `` so that a report shows everything that wrote its figures."""
    first = doc.get("command") or default
    return " ; then ".join([first, *doc.get("resumed_by", [])])


class ResultsFile:
    def __init__(self, path: Path, config: dict[str, Any], command: str, sections: tuple[str, ...] = ()) -> None:
        self.path = path
        self.doc: dict[str, Any] = {"config": config, "command": command, "traces": [],
                                    "started": time.strftime("%Y-%m-%d %H:%M:%S"), **{k: [] for k in sections}}
        if path.exists():
            old = json.loads(path.read_text())
            if old.get("config") == config:
                for k in sections:  # a section added since the file was written
                    old.setdefault(k, [])
                if command and command != old.get("command") and command not in old.get("resumed_by", []):
                    old.setdefault("resumed_by", []).append(command)  # a rerun that resumed or extended it
                self.doc = old  # resume: keep what is done
            else:
                raise BenchInputError(f"{path} holds a benchmark with other settings; use another --out or delete it")

    def has_trace(self, tuner: str, layer: str, seed: int) -> bool:
        return any(t["tuner"] == tuner and t["layer"] == layer and t["seed"] == seed for t in self.doc["traces"])

    def trace(self, tuner: str, layer: str, seed: int) -> RunTrace | None:
        for t in self.doc["traces"]:
            if t["tuner"] == tuner and t["layer"] == layer and t["seed"] == seed:
                return RunTrace.from_json(t)
        return None

    def add_trace(self, trace: RunTrace) -> None:
        self.doc["traces"].append(trace.to_json())
        self.save()

    def find(self, section: str, **match: Any) -> dict[str, Any] | None:
        return next(iter(self.find_all(section, **match)), None)

    def find_all(self, section: str, **match: Any) -> list[dict[str, Any]]:
        return [x for x in self.doc[section] if all(x.get(k) == v for k, v in match.items())]

    def add(self, section: str, item: dict[str, Any]) -> None:
        self.doc[section].append(item)
        self.save()

    def finish(self) -> None:
        self.doc["finished"] = time.strftime("%Y-%m-%d %H:%M:%S")
        self.save()

    def save(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        tmp = self.path.with_suffix(".json.tmp")
        tmp.write_text(json.dumps(self.doc))
        os.replace(tmp, self.path)

    def traces(self) -> list[RunTrace]:
        return [RunTrace.from_json(t) for t in self.doc["traces"]]
