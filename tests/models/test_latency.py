"""``tensortune bench latency``: written libraries timed in a fresh process per measurement, checked
against PyTorch, per-round figures kept (resumable, extendable), paired ratios with a bootstrap interval."""

from __future__ import annotations

import json
import math

import numpy as np
import psutil
import pytest

from tensortune.bench.results import BenchInputError
from tensortune.cli.main import main
from tensortune.models.latency import (
    LatencyConfig,
    Library,
    bootstrap_ci,
    measure_round,
    pair_stats,
    round_order,
    run_latency,
    verdict,
    write_latency_report,
)

TINY = """
import torch


class Tiny(torch.nn.Module):
    example_input_shape = (1, 3, 12, 12)

    def __init__(self):
        super().__init__()
        torch.manual_seed({seed})
        self.body = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU(),
                                        torch.nn.Conv2d(8, 4, 3, padding=1))

    def forward(self, x):
        return self.body(x)
"""


def _library(tmp_path, name: str, weights_seed: int) -> tuple[str, str]:
    """A model file (weights fixed by ``weights_seed``) and its library, built as ``tensortune build`` does."""
    from tensortune.models.build import build_model
    from tensortune.models.importer import load_model

    src = tmp_path / f"{name}.py"
    src.write_text(TINY.replace("{seed}", str(weights_seed)))
    spec = f"{src}:Tiny"
    lib = str(tmp_path / f"{name}.so")
    build_model(load_model(spec), {"kind": "llvm", "num-cores": 1}).executable.export_library(lib)
    return spec, lib


def _children() -> list[psutil.Process]:
    """This process's children but multiprocessing's resource tracker (started once, kept for the session)."""
    return [c for c in psutil.Process().children(recursive=True)
            if "multiprocessing.resource_tracker" not in " ".join(c.cmdline())]


def _doc(ms: dict[str, list[float]]) -> dict:
    n = len(next(iter(ms.values())))
    return {"config": {"names": list(ms)},
            "measurements": [{"round": r, "name": k, "ms": v[r]} for r in range(n) for k, v in ms.items()]}


def test_each_round_visits_every_contender_once_in_an_order_fixed_by_seed_and_round():
    names = ["a", "b", "c", "d", "e"]
    orders = [round_order(names, 7, r) for r in range(12)]
    assert all(sorted(o) == names for o in orders)
    assert len({tuple(o) for o in orders}) > 1  # the order changes between rounds
    assert orders == [round_order(names, 7, r) for r in range(12)]  # a resumed round keeps its order
    assert [round_order(names, 8, r) for r in range(12)] != orders


class _FakeProcess:
    """Stands in for a ``ServedProcess``: logs what the round asks of it (the real processes are timed in
    the tests below)."""

    def __init__(self, name: str, log: list, fail_at: int | None = None):
        self.name, self.log, self.fail_at, self.output, self.n = name, log, fail_at, np.zeros(1), 0
        log.append(("start", name))

    def repeat_ms(self, min_repeat_ms: int) -> float:
        self.n += 1
        if self.fail_at is not None and self.n >= self.fail_at:
            raise RuntimeError(f"{self.name} died")
        self.log.append(("repeat", self.name))
        return float(self.n)

    def settle(self, max_s: float) -> float:
        self.log.append(("settle", self.name))
        return 0.0

    def close(self) -> None:
        self.log.append(("close", self.name))


def test_a_round_interleaves_the_contenders_repeats_and_stops_every_process():
    log: list = []
    starters = {n: (lambda n=n: _FakeProcess(n, log)) for n in "abc"}
    times, outputs = measure_round(starters, ["c", "a", "b"], repeats=3, min_repeat_ms=5)
    assert log[:3] == [("start", "c"), ("start", "a"), ("start", "b")]  # all up before any is timed
    timed = [n for kind, n in log[3:] if kind == "repeat"]
    assert timed == list("cab") + list("cab") + list("bac") + list("cab")  # discarded pass, then 3 passes
    assert all(log[i + 1] == ("settle", e[1]) for i, e in enumerate(log) if e[0] == "repeat")  # none overlaps
    assert times == {"c": [2.0, 3.0, 4.0], "a": [2.0, 3.0, 4.0], "b": [2.0, 3.0, 4.0]}  # the first is discarded
    assert sorted(outputs) == ["a", "b", "c"]
    assert sorted(n for kind, n in log if kind == "close") == ["a", "b", "c"]
    for fail in ("a", "b"):  # a process dying mid-round: every process of the round is stopped
        log = []
        starters = {n: (lambda n=n, log=log, fail=fail: _FakeProcess(n, log, fail_at=3 if n == fail else None))
                    for n in "abc"}
        with pytest.raises(RuntimeError, match=f"{fail} died"):
            measure_round(starters, ["a", "b", "c"], repeats=4, min_repeat_ms=5)
        assert sorted(n for kind, n in log if kind == "close") == ["a", "b", "c"]
    log = []  # one failing to start: those started before it are stopped

    def broken():
        raise RuntimeError("library x: no such symbol")

    starters = {"a": lambda: _FakeProcess("a", log), "x": broken, "c": lambda: _FakeProcess("c", log)}
    with pytest.raises(RuntimeError, match="no such symbol"):
        measure_round(starters, ["a", "x", "c"], repeats=2, min_repeat_ms=5)
    assert log == [("start", "a"), ("close", "a")]


def _spinning_server(conn, spin_s: float) -> None:
    """A served process whose work leaves a thread spinning for ``spin_s``, as a thread pool does."""
    import threading
    import time

    from tensortune.models.peers import _serve

    state = {"until": 0.0}

    def spin() -> None:
        while time.perf_counter() < state["until"]:
            pass

    def fn() -> None:
        if time.perf_counter() >= state["until"]:
            state["until"] = time.perf_counter() + spin_s
            threading.Thread(target=spin, daemon=True).start()

    _serve(conn, fn, np.zeros(1))


def test_settle_waits_while_the_process_spins_and_not_longer():
    from tensortune.models.peers import ServedProcess

    spinning = ServedProcess("spinner", _spinning_server, 0.4)
    idle = ServedProcess("idle", _spinning_server, 0.0)
    try:
        spinning.repeat_ms(5)
        waited = spinning.settle(max_s=2.0)
        assert 0.25 <= waited < 1.5
        assert spinning.settle(max_s=2.0) < 0.2  # nothing spins any more
        assert spinning.repeat_ms(5) > 0 and spinning.settle(max_s=0.1) < 0.2  # the cap holds
        idle.repeat_ms(5)
        assert idle.settle(max_s=2.0) < 0.2
    finally:
        spinning.close()
        idle.close()


def test_a_consistent_edge_is_shown_and_noise_alone_is_level():
    rng = np.random.default_rng(0)
    host = rng.uniform(10, 20, 24)  # the host's speed moves by far more than the libraries differ
    faster = _doc({"a": list(host * 0.97 * rng.uniform(0.995, 1.005, 24)), "b": list(host)})
    p = pair_stats(faster, [("a", "b")])["pairs"][0]
    assert p["ci95"][1] < 1.0 and p["verdict"] == "at least as fast: shown" and p["a_faster"] == 24
    assert abs(p["geomean"] - 0.97) < 0.005
    slower = pair_stats(_doc({"a": list(host * 1.05), "b": list(host)}), [("a", "b")])["pairs"][0]
    assert slower["verdict"] == "slower: shown" and slower["ci95"][0] > 1.0
    noise = _doc({"a": list(host * rng.uniform(0.8, 1.25, 24)), "b": list(host)})
    level = pair_stats(noise, [("a", "b")])["pairs"][0]
    assert level["ci95"][0] < 1.0 < level["ci95"][1] and level["verdict"] == "level: neither shown"
    assert verdict(bootstrap_ci(np.array([0.1]))) == "too few rounds"


def test_several_pairs_combine_round_by_round():
    rng = np.random.default_rng(1)
    host = rng.uniform(10, 20, 16)
    doc = _doc({"a0": list(host * 0.9), "b0": list(host), "a1": list(host * 1.1), "b1": list(host)})
    assert "all" not in pair_stats(doc, [("a0", "b0"), ("a1", "b1")])  # only when asked: pairs may be unrelated
    st = pair_stats(doc, [("a0", "b0"), ("a1", "b1")], combine=True)
    assert [round(p["geomean"], 6) for p in st["pairs"]] == [0.9, 1.1]
    assert st["all"]["rounds"] == 16
    assert math.isclose(st["all"]["geomean"], math.sqrt(0.9 * 1.1), rel_tol=1e-9)
    doc["measurements"] = [m for m in doc["measurements"] if not (m["name"] == "a1" and m["round"] == 3)]
    st = pair_stats(doc, [("a0", "b0"), ("a1", "b1")], combine=True)
    assert st["pairs"][0]["rounds"] == 16 and st["pairs"][1]["rounds"] == 15 and st["all"]["rounds"] == 15


def test_bad_settings_are_refused_with_the_reason(tmp_path):
    lib = tmp_path / "x.so"
    lib.write_bytes(b"")
    with pytest.raises(ValueError, match="no such file"):
        LatencyConfig("resnet18", [Library("a", str(tmp_path / "missing.so"))])
    with pytest.raises(ValueError, match="given twice"):
        LatencyConfig("resnet18", [Library("onnxruntime", str(lib))])
    with pytest.raises(ValueError, match="no contender named 'c'"):
        LatencyConfig("resnet18", [Library("a", str(lib))], pairs=[("a", "c")])
    with pytest.raises(ValueError, match="unknown peer"):
        LatencyConfig("resnet18", [Library("a", str(lib))], peers=["tensorrt"])
    with pytest.raises(ValueError, match="at least one"):
        LatencyConfig("resnet18", [])
    assert main(["bench", "latency", "--model", "resnet18", "--lib", "a", "--out", str(tmp_path / "o")]) == 2
    assert main(["bench", "latency", "--model", str(tmp_path / "none.py:Net"), "--lib", f"a={lib}",
                 "--out", str(tmp_path / "o")]) == 2
    assert not (tmp_path / "o").exists()  # nothing written for a run that could not start
    assert main(["bench", "latency", "--model", "resnet18", "--lib", f"a={lib}", "--pairs", "a-b",
                 "--out", str(tmp_path / "o")]) == 2


def test_libraries_are_timed_checked_resumed_and_extended_with_no_process_left(tmp_path):
    spec, lib = _library(tmp_path, "tiny", 0)
    out = tmp_path / "lat"
    before = {p.pid for p in _children()}
    cfg = LatencyConfig(spec, [Library("a", lib), Library("b", lib)], rounds=2, peers=["eager"],
                        pairs=[("a", "b")], threads=1, repeats=3, min_repeat_ms=5, pause_s=0.0)
    doc = run_latency(cfg, out, command="bench latency --rounds 2", progress=False)
    assert sorted((m["round"], m["name"]) for m in doc["measurements"]) == [
        (r, n) for r in range(2) for n in ("a", "b", "eager")]
    assert all(m["ms"] > 0 for m in doc["measurements"]) and "finished" in doc
    for m in doc["measurements"]:  # a round's figure: the median of its interleaved repeats
        assert len(m["repeats"]) == 3 and math.isclose(m["ms"], float(np.median(m["repeats"])), rel_tol=1e-3)
    for r in range(2):  # the start order of the round's processes is kept: the round's drawn order
        got = sorted((m["start"], m["name"]) for m in doc["measurements"] if m["round"] == r)
        assert [n for _, n in got] == round_order(["a", "b", "eager"], cfg.order_seed, r)
    assert {c["name"] for c in doc["checks"]} == {"a", "b", "eager"}
    assert all(c["max_abs_error"] < 1e-4 for c in doc["checks"])
    assert doc["config"]["threads"] == 1 and doc["config"]["llvm_cpu"]
    report = write_latency_report(doc, out).read_text()
    assert "| a / b | 2 |" in report and (out / "latency.png").stat().st_size > 0
    assert "Scope Loaded" not in report
    first = {(m["round"], m["name"]): m["at"] for m in doc["measurements"]}
    cfg.rounds = 3  # more rounds extend the set: the first two are kept, one more is measured
    doc = run_latency(cfg, out, command="bench latency --rounds 3", progress=False)
    again = {(m["round"], m["name"]): m["at"] for m in doc["measurements"]}
    assert len(again) == 9 and all(again[k] == v for k, v in first.items())
    assert "`bench latency --rounds 2 ; then bench latency --rounds 3`" in write_latency_report(doc, out).read_text()
    assert json.loads((out / "results.json").read_text())["rounds"] == 3
    left = [p for p in _children() if p.pid not in before]
    psutil.wait_procs(left, timeout=10)
    assert not [p for p in left if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]


def test_a_library_of_other_weights_stops_the_benchmark(tmp_path):
    spec, _ = _library(tmp_path, "tiny", 0)
    _, other = _library(tmp_path, "other", 1)  # the same network, other weights: wrong numbers, plausible speed
    cfg = LatencyConfig(spec, [Library("wrong", other)], rounds=1, peers=[], threads=1, min_repeat_ms=5,
                        pause_s=0.0)
    with pytest.raises(BenchInputError, match="wrong: output differs from PyTorch"):
        run_latency(cfg, tmp_path / "lat", progress=False)
    doc = json.loads((tmp_path / "lat" / "results.json").read_text())
    assert doc["measurements"] == [] and doc["checks"][0]["max_abs_error"] > 1e-3 and not doc["checks"][0]["ok"]
    with pytest.raises(BenchInputError, match="output differs"):  # a rerun checks it again, never times it
        run_latency(cfg, tmp_path / "lat", progress=False)
