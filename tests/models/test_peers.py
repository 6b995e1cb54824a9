"""The interleaved timing protocol: every contender runs one repeat per round, in an order that rotates,
a pause between repeats; ONNX Runtime's process is checked, timed and never left behind."""

from __future__ import annotations

import time

import numpy as np
import psutil
import pytest

from tensortune.models.peers import Contender, one_repeat_ms, time_interleaved


def test_every_round_runs_each_contender_once_in_a_rotating_order():
    calls: list[str] = []

    def make(name: str, ms: float) -> Contender:
        def rep(min_ms: int) -> float:
            calls.append(name)
            return ms

        return Contender(name, rep)

    got = time_interleaved([make("a", 1.0), make("b", 2.0), make("c", 3.0)], repeat=4, min_repeat_ms=1, pause_s=0)
    assert calls[:3] == ["a", "b", "c"]  # one warm-up repeat each, not counted
    rounds = [calls[3 + 3 * r: 6 + 3 * r] for r in range(4)]
    assert rounds == [["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"]]
    assert {k: (t.median_ms, len(t.repeats_ms)) for k, t in got.items()} == {"a": (1.0, 4), "b": (2.0, 4), "c": (3.0, 4)}


def test_a_slow_phase_of_the_machine_hits_every_contender_alike():
    """Two contenders of equal speed on a machine that is 2x slower for the first half of the timing:
    back to back, one of them would take all the slow repeats; interleaved, their medians agree."""
    clock = {"t": 0}

    def make(name: str) -> Contender:
        def rep(min_ms: int) -> float:
            clock["t"] += 1
            return 2.0 if clock["t"] <= 12 else 1.0  # the first 12 repeats (3 warm-ups included) slow

        return Contender(name, rep)

    got = time_interleaved([make("x"), make("y")], repeat=10, min_repeat_ms=1, pause_s=0)
    assert sorted(got["x"].repeats_ms) == sorted(got["y"].repeats_ms)


def test_one_repeat_lasts_at_least_its_minimum():
    n = {"calls": 0}

    def fn() -> None:
        n["calls"] += 1

    ms = one_repeat_ms(fn, 5)
    assert n["calls"] >= 1 and 0 < ms * n["calls"] and ms * n["calls"] >= 5 * 0.99


def test_onnx_runtime_is_checked_in_its_own_process_and_stopped():
    pytest.importorskip("onnxruntime")
    import torch

    from tensortune.models.importer import import_torch
    from tensortune.models.peers import prepare_peer

    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).eval()
    model = import_torch(net, (1, 3, 16, 16), "tiny")
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype("float32")
    ref = model.torch_output(x)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    p = prepare_peer("onnxruntime", model, x, ref, threads=1)
    assert p.contender is not None and p.max_abs_error is not None and p.max_abs_error < 1e-4
    # Python's multiprocessing resource tracker (started by the first spawn) lives as long as this process
    mine = [c for c in psutil.Process().children(recursive=True) if c.pid not in before
            and "multiprocessing.resource_tracker" not in " ".join(c.cmdline())]
    assert mine  # the session lives in a process of its own
    assert p.contender.repeat_ms(2) > 0
    p.contender.close()
    psutil.wait_procs(mine, timeout=10)
    assert not [c for c in mine if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_a_peer_that_cannot_run_is_skipped_with_its_reason():
    from tensortune.models.peers import prepare_peer

    class NoTorch:
        torch_module = None

    got = prepare_peer("eager", NoTorch(), np.zeros((1, 3, 4, 4), "float32"), None, threads=1)
    assert got.contender is None and "no PyTorch module" in got.skipped
    with pytest.raises(ValueError, match="unknown peer"):
        prepare_peer("tensorrt", NoTorch(), np.zeros((1,), "float32"), None, threads=1)


def test_onnx_runtime_process_is_idle_once_its_output_is_back():
    """The process warms up before it answers: a warm-up run after the answer would overlap the check for
    other work on the cores (which then warned about a busy machine on VGG-16) and the first timed repeat."""
    pytest.importorskip("onnxruntime")
    import torch

    from tensortune.models.importer import import_torch
    from tensortune.models.peers import prepare_peer

    torch.manual_seed(0)
    net = torch.nn.Sequential(torch.nn.Conv2d(96, 96, 3, padding=1), torch.nn.Conv2d(96, 96, 3, padding=1)).eval()
    model = import_torch(net, (1, 96, 96, 96), "heavy")  # 3.2 GFLOP: a run takes tens of ms or more
    x = np.random.default_rng(0).standard_normal((1, 96, 96, 96)).astype("float32")
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    p = prepare_peer("onnxruntime", model, x, model.torch_output(x), threads=1)
    try:
        assert p.contender is not None
        mine = [c for c in psutil.Process().children(recursive=True) if c.pid not in before
                and "multiprocessing.resource_tracker" not in " ".join(c.cmdline())]
        assert len(mine) == 1
        t0 = sum(mine[0].cpu_times()[:2])
        time.sleep(0.3)
        used = sum(mine[0].cpu_times()[:2]) - t0
        assert used < 0.02, f"ONNX Runtime's process used {used:.3f} s of CPU while it had nothing to do"
    finally:
        p.contender.close()


def _own_children(before: set[int]) -> list[psutil.Process]:
    return [c for c in psutil.Process().children(recursive=True) if c.pid not in before
            and "multiprocessing.resource_tracker" not in " ".join(c.cmdline())]


def test_a_written_library_is_checked_and_timed_in_a_process_of_its_own(tmp_path):
    """The tuned build's headline latency comes from its library run as deployed (TVM runtime alone, a
    fresh process), beside the same build in the tuning process; the process goes when closed."""
    import torch

    from tensortune.models.build import build_model
    from tensortune.models.importer import import_torch
    from tensortune.models.peers import library_process

    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).eval()
    model = import_torch(net, (1, 3, 16, 16), "tiny")
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype("float32")
    built = build_model(model, {"kind": "llvm", "num-cores": 1})
    lib = str(tmp_path / "m.so")
    built.executable.export_library(lib)
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    proc = library_process(lib, x, threads=1)
    try:
        assert np.max(np.abs(proc.output - model.torch_output(x))) < 1e-4
        mine = _own_children(before)
        assert len(mine) == 1
        assert proc.repeat_ms(2) > 0
    finally:
        proc.close()
    psutil.wait_procs(mine, timeout=10)
    assert not [c for c in mine if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_a_library_that_does_not_load_is_an_error_with_its_reason_and_no_process_left(tmp_path):
    from tensortune.models.peers import library_process

    bad = tmp_path / "not-a-library.so"
    bad.write_text("nothing here")
    before = {p.pid for p in psutil.Process().children(recursive=True)}
    with pytest.raises(RuntimeError, match="Error"):
        library_process(str(bad), np.zeros((1, 3, 4, 4), "float32"), threads=1)
    left = _own_children(before)
    psutil.wait_procs(left, timeout=10)
    assert not [c for c in left if c.is_running() and c.status() != psutil.STATUS_ZOMBIE]


def test_a_build_that_cannot_be_written_is_timed_in_the_tuning_process_with_the_reason(tmp_path):
    from types import SimpleNamespace

    from tensortune.models.pipeline import _own_process

    def export_library(path):
        raise RuntimeError("no C compiler to link with\nmore")

    built = SimpleNamespace(executable=SimpleNamespace(export_library=export_library), threads=1)
    said: list[str] = []
    x = np.zeros((1,), "float32")
    got = _own_process(built, str(tmp_path / "m.so"), x, x, None, said.append)
    assert got == "RuntimeError: no C compiler to link with" and said


def test_the_library_process_writes_tvms_lines_to_the_runs_log_not_the_console(tmp_path, capfd):
    """TVM's runtime prints a "Scope Loaded" warning per constant scope when the library loads; a tune run's
    console showed dozens of them. The library's process inherits the run's log file as its stderr."""
    import torch

    from tensortune.models.build import build_model
    from tensortune.models.importer import import_torch
    from tensortune.models.pipeline import _own_process

    net = torch.nn.Sequential(torch.nn.Conv2d(3, 8, 3, padding=1), torch.nn.ReLU()).eval()
    model = import_torch(net, (1, 3, 16, 16), "tiny")
    x = np.random.default_rng(0).standard_normal((1, 3, 16, 16)).astype("float32")
    built = build_model(model, {"kind": "llvm", "num-cores": 1})
    log = tmp_path / "tvm.log"
    capfd.readouterr()
    got = _own_process(built, str(tmp_path / "m.so"), x, built.run(x), str(log), lambda _m: None)
    assert not isinstance(got, str), got
    contender, err = got
    try:
        assert contender.repeat_ms(2) > 0 and err < 1e-4
    finally:
        contender.close()
    assert "Scope Loaded" in log.read_text()
    assert "Scope Loaded" not in capfd.readouterr().err
