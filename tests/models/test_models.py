"""Whole models: import (PyTorch, user file, ONNX), task extraction, allocators, tuned build, export,
and our explorers inside MetaSchedule as a PySearchStrategy."""

from __future__ import annotations

import json
import math
import os
import textwrap

import numpy as np
import pytest

from helpers import TINY  # a tiny user model file, shared with test_winograd.py
from tensortune.models.allocation import GradientAllocator, RoundRobin, TaskProgress, first_round_size


def test_round_robin_cycles_and_skips_exhausted() -> None:
    ts = [TaskProgress(1, 1e6, "conv2d", 100), TaskProgress(1, 1e6, "conv2d", 5, trials=5), TaskProgress(1, 1e6, "x", 100)]
    rr = RoundRobin()
    assert [rr.pick(ts) for _ in range(4)] == [0, 2, 0, 2]
    for t in ts:
        t.trials = t.space_size
    assert rr.pick(ts) is None


def test_first_rounds_follow_each_tasks_share_of_the_flops() -> None:
    """VGG-16-like: two heavy convs and four light tasks (pools, a layout transform with no FLOPs) at a
    200-measurement budget. The convs get full first rounds (half with transferred schedules), the light
    tasks a quarter round, also when they come last, and no task takes what the later ones need for theirs."""
    ts = [TaskProgress(2, 3.7e9, "conv2d", 10**6), TaskProgress(1, 1.8e9, "conv2d", 10**6),
          *(TaskProgress(1, 1e6, "pool", 10**3) for _ in range(3)), TaskProgress(1, 0.0, "layout", 50)]
    assert first_round_size(ts, 0, 200, 200, 16, transferred=False) == 16
    assert first_round_size(ts, 0, 200, 200, 16, transferred=True) == 8  # half a round
    assert first_round_size(ts, 2, 200, 200, 16, transferred=False) == 4  # a quarter round for a light task
    assert first_round_size(ts, 2, 200, 200, 16, transferred=True) == 4
    assert first_round_size(ts, 5, 200, 200, 16, transferred=False) == 4  # no FLOPs: the floor
    # a budget too small for a round each: the first task leaves the later five their quarter rounds
    assert first_round_size(ts, 0, 24, 24, 16, transferred=False) == 4
    assert first_round_size(ts, 0, 10, 10, 16, transferred=False) == 1  # and never less than one
    # the convs have had their rounds: a pool is still light (a share of the model, not of those waiting)
    for t in ts[:2]:
        t.trials, t.history = 16, [(16, 1e-2)]
    assert first_round_size(ts, 2, 200, 168, 16, transferred=False) == 4
    # a conv whose turn comes late still gets its share of the budget, not of what is left
    ts[1].trials, ts[1].history = 0, []
    assert first_round_size(ts, 1, 200, 40, 16, transferred=False) == 16
    assert first_round_size(ts, 1, 200, 24, 16, transferred=False) == 8  # 24 - 4 x 4 for the four still waiting
    # equal parts of what is left when no task has FLOPs; never more than its space
    flat = [TaskProgress(1, 0.0, "layout", 3), TaskProgress(1, 0.0, "layout", 50)]
    assert first_round_size(flat, 0, 200, 200, 16, transferred=False) == 3
    assert first_round_size(flat, 1, 200, 200, 16, transferred=False) == 16


def test_a_memory_bound_task_gets_the_first_round_its_bytes_ask_for() -> None:
    """A memory-bound task that reuses its bytes (2 FLOPs a byte, like a 3x3 depthwise conv: 800 MFLOP, 400 MB of
    arguments) among convs of 1.2-3.7 GFLOP: by FLOPs it would get a fifth of a round first, by its bytes at
    MEMORY_BOUND_FLOP_PER_BYTE it gets a full one and comes before the lighter conv; a compute-bound task's work
    is its FLOPs, and a task of unknown bytes (0) keeps its FLOPs."""
    from tensortune.models.allocation import MEMORY_BOUND_FLOP_PER_BYTE

    convs = [TaskProgress(2, 3.7e9, "conv2d", 10**6, arg_bytes=8_000_000),
             TaskProgress(1, 1.2e9, "conv2d", 10**6, arg_bytes=6_000_000)]
    dw = TaskProgress(1, 8e8, "conv2d", 10**5, arg_bytes=400_000_000)
    assert not dw.streaming and not convs[0].streaming
    assert convs[0].work == 3.7e9 and dw.work == MEMORY_BOUND_FLOP_PER_BYTE * 400_000_000
    assert TaskProgress(1, 2.06e8, "dense", 10).work == 2.06e8
    ts = [*convs, dw]
    assert first_round_size(ts, 2, 200, 200, 16, transferred=False) == 16
    flops_only = [*convs, TaskProgress(1, 8e8, "conv2d", 10**5)]
    assert first_round_size(flops_only, 2, 200, 200, 16, transferred=False) == 16  # its FLOP share 17: a round
    flops_only[2].flops = 2.06e8
    assert first_round_size(flops_only, 2, 200, 200, 16, transferred=False) == 5  # 4.7
    a = GradientAllocator(seed=0, epsilon=0.0)
    assert a.pick(ts) == 0
    ts[0].trials, ts[0].history = 16, [(16, 1e-2)]
    assert a.pick(ts) == 2  # 1.6 GFLOP-equivalents before the 1.2 GFLOP conv


def test_a_streaming_task_gets_the_floor_first_and_waits_for_the_others_after() -> None:
    """VGG-16's fc6 (205 MFLOP, 411 MB of arguments: 0.5 FLOP a byte, each weight read once) streams: whatever
    its bytes, its first round is a quarter round (an eighth with transferred schedules); it still comes first by
    its bytes (1.64 GFLOP-equivalents before the 1.2 GFLOP conv). Afterwards its promise (9 ms over 4
    measurements) would beat the convs', but it waits while a task that does not stream can take a round. A
    model whose tasks all stream shares the budget among them by the gradient."""
    from tensortune.models.allocation import STREAMING_FLOP_PER_BYTE

    convs = [TaskProgress(2, 3.7e9, "conv2d", 10**6, arg_bytes=8_000_000),
             TaskProgress(1, 1.2e9, "conv2d", 10**6, arg_bytes=6_000_000)]
    fc6 = TaskProgress(1, 2.06e8, "dense", 10**5, arg_bytes=411_000_000)
    pool = TaskProgress(1, 3.2e6, "pool", 10**3, arg_bytes=16_000_000)
    copy = TaskProgress(1, 0.0, "layout", 50, arg_bytes=4_000_000)
    assert fc6.streaming and pool.streaming and copy.streaming
    assert not TaskProgress(1, 2.06e8, "dense", 10**5).streaming  # bytes unknown: not streaming
    assert TaskProgress(1, STREAMING_FLOP_PER_BYTE * 1e6, "x", 10, arg_bytes=10**6).streaming  # the bound counts
    ts = [*convs, fc6, pool, copy]
    assert first_round_size(ts, 2, 200, 200, 16, transferred=False) == 4
    assert first_round_size(ts, 2, 200, 200, 16, transferred=True) == 2
    assert first_round_size(ts, 3, 200, 200, 16, transferred=True) == 2
    assert first_round_size(ts, 0, 200, 200, 16, transferred=True) == 8  # a conv keeps its half round
    # a budget too small: the streaming task leaves the others their quarter rounds, and never less than one
    assert first_round_size(ts, 2, 14, 14, 16, transferred=True) == 1  # 14 - 4 x 4 < 1: one
    assert first_round_size([fc6], 0, 200, 200, 16, transferred=False) == 4
    assert first_round_size([fc6], 0, 200, 1, 16, transferred=False) == 1
    a = GradientAllocator(seed=0, epsilon=0.0)
    assert a.pick(ts) == 0
    ts[0].trials, ts[0].history = 8, [(8, 4e-3)]
    assert a.pick(ts) == 2  # its bytes still order the first rounds
    ts[2].trials, ts[2].history = 4, [(4, 9e-3)]
    ts[1].trials, ts[1].history = 8, [(8, 1.5e-3)]
    for t in ts[3:]:
        t.trials, t.history = 2, [(2, 1e-4)]
    assert a.gradient(2, ts) < a.gradient(0, ts)  # its promise is the largest...
    assert a.pick(ts) in (0, 1)  # ...but a conv takes the round
    assert 2 not in [a.pick(ts) for _ in range(20)]
    for t in ts[:2]:  # the convs exhausted: the streaming tasks share what is left
        t.trials = t.space_size
    assert a.pick(ts) == 2
    only = [TaskProgress(1, 2.06e8, "dense", 10**5, arg_bytes=411_000_000, trials=4, history=[(4, 9e-3)]),
            TaskProgress(1, 3.4e7, "dense", 10**5, arg_bytes=67_000_000, trials=4, history=[(4, 1e-3)])]
    assert a.pick(only) == 0
    # with epsilon, a streaming task still gets a random round now and then
    b = GradientAllocator(seed=0, epsilon=1.0)
    ts[0].trials = ts[1].trials = 8
    assert 2 in [b.pick(ts) for _ in range(50)]


def test_gradient_allocator_warms_up_then_follows_the_weighted_gain() -> None:
    a = GradientAllocator(seed=0, epsilon=0.0)
    ts = [TaskProgress(1, 1e8, "conv2d", 10**6), TaskProgress(4, 1e8, "conv2d", 10**6)]
    assert a.pick(ts) == 1  # every task gets a first round, the heaviest (calls x FLOPs) first
    ts[1].trials, ts[1].history = 16, [(16, 1e-3)]
    assert a.pick(ts) == 0
    ts[0].trials, ts[0].history = 16, [(16, 1e-3)]
    # same latency and progress, but task 1 runs 4 times per inference: its gain counts 4 times
    assert a.pick(ts) == 1
    # task 0 is far slower than its peer's throughput suggests: the optimistic term favours it
    ts[0].history = [(8, 9e-3), (16, 8e-3)]
    ts[1].history = [(8, 1e-3), (16, 1e-3)]
    assert a.pick(ts) == 0
    assert all(math.isfinite(g) for g in a.last_gradients)


COVER = textwrap.dedent('''
    import torch
    from torch import nn

    class Cover(nn.Module):
        """Every compute-heavy CNN operator once: 7x7 strided, max pool, depthwise, 1x1 with ReLU6,
        grouped, 3x3 strided, global average pool, dense."""
        example_input_shape = (1, 3, 32, 32)

        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.stem = nn.Conv2d(3, 16, 7, stride=2, padding=3)
            self.pool = nn.MaxPool2d(3, stride=2, padding=1)
            self.dw = nn.Conv2d(16, 16, 3, padding=1, groups=16)
            self.pw = nn.Conv2d(16, 32, 1)
            self.gc = nn.Conv2d(32, 32, 3, padding=1, groups=4)
            self.c3 = nn.Conv2d(32, 32, 3, stride=2, padding=1)
            self.avg = nn.AdaptiveAvgPool2d(1)
            self.fc = nn.Linear(32, 10)

        def forward(self, x):
            y = self.pool(torch.relu(self.stem(x)))
            y = torch.clamp(self.pw(torch.relu(self.dw(y))), 0, 6)
            y = torch.relu(self.c3(torch.relu(self.gc(y))))
            return self.fc(self.avg(y).flatten(1))
''')


@pytest.fixture()
def task_env(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path / "tasks"))
    return tmp_path


@pytest.mark.slow
def test_resnet18_extraction_weights_and_template_coverage(task_env) -> None:
    import tvm

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.importer import load_model
    from tensortune.models.tasks import _calls, extract_tasks, save_task
    from tensortune.templates.tir_schedules import conv_params
    from tensortune.workloads import Conv2d
    from tensortune.workloads.tir import TirWorkload, task_dir

    m = load_model("resnet18")
    fused, tasks = extract_tasks(m, tvm.target.Target(default_cpu_target()))
    assert sum(t.weight for t in tasks) == len(_calls(fused))
    convs = [t for t in tasks if t.kind == "conv2d"]
    assert sum(t.weight for t in convs) == 20  # ResNet-18 has 20 convolutions (17 3x3/7x7 + 3 downsampling)
    for t in convs:
        save_task(t, task_dir())
        assert conv_params(TirWorkload(t.key)) is not None
    # the default reduced space covers every ResNet-18 conv; each of its configs is one of the full space
    from tensortune.templates import get_template

    small, full = get_template("conv2d_nchw_fused.llvm-small"), get_template("conv2d_nchw_fused.llvm")
    for t in convs:
        wl = TirWorkload(t.key)
        assert small.supports(wl)
        rs, fs = small.space(wl), full.space(wl)
        assert 100 <= rs.size <= 20_000 and fs.size > 10 * rs.size
        for cfg in rs.sample(5, np.random.default_rng(0)):
            assert fs.is_valid(fs.from_json(rs.to_json(cfg)))
    stem = [t for t in convs if TirWorkload(t.key).arg_specs[0][0] == (1, 3, 224, 224)]
    assert len(stem) == 1 and conv_params(TirWorkload(stem[0].key)) == Conv2d.make(1, 3, 224, 224, 64, 7, 2, 3)
    assert {t.kind for t in tasks} >= {"conv2d", "dense", "pool"}


def _onnx_model(path: str) -> tuple[np.ndarray, np.ndarray]:
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(0)
    w = rng.standard_normal((8, 3, 3, 3)).astype("float32")
    b = rng.standard_normal(8).astype("float32")
    g = helper.make_graph(
        [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), helper.make_node("Relu", ["c"], ["y"])],
        "tiny", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    onnx.save(helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)]), path)
    return w, b


@pytest.mark.slow
def test_onnx_import_builds_and_matches_numpy(task_env) -> None:
    import torch

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.build import build_model
    from tensortune.models.importer import load_model

    path = str(task_env / "tiny.onnx")
    w, b = _onnx_model(path)
    m = load_model(path)
    assert m.source == "onnx" and m.input_shape == (1, 3, 8, 8)
    x = m.example_input()
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1))
    out = build_model(m, default_cpu_target()).run(x)
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-4, atol=1e-4)


def test_bad_model_specs_give_clear_errors(tmp_path) -> None:
    from tensortune.models.importer import ModelError, load_model

    with pytest.raises(ModelError, match="unknown model"):
        load_model("resnet50")
    with pytest.raises(ModelError, match="no such file"):
        load_model(str(tmp_path / "none.py") + ":Net")
    p = tmp_path / "m.py"
    p.write_text("class Net:\n    pass\n")
    with pytest.raises(ModelError, match="not a torch.nn.Module"):
        load_model(f"{p}:Net")
    with pytest.raises(ModelError, match="defines no"):
        load_model(f"{p}:Other")


def _random_schedules(model, target, seed: int = 0):
    """Each task our conv template covers, with a random config of its space (no measuring)."""
    from tensortune.models.build import TunedSchedule
    from tensortune.models.flow import ModelTuneResult, plan_tasks

    fused, tasks, rows = plan_tasks(model, target)
    rng = np.random.default_rng(seed)
    out = []
    for r in rows:
        if r.template and r.template.startswith("conv2d_nchw_fused.llvm"):
            cfg = r.task.space.sample(1, rng)[0]
            r.best_values, r.best_s = r.task.space.values(cfg), 1e-3
            out.append(TunedSchedule(r.task.workload.mod, r.template, r.best_values, r.best_s, r.task.workload.task_key))
    return out, ModelTuneResult(rows, fused, tasks, 0.0, 0)


@pytest.mark.slow
def test_tuned_kernels_keep_their_parallel_loop_and_every_core_inside_the_model(task_env, monkeypatch) -> None:
    """Kernel parity (models issue): the tuned functions of a built model are compiled with their
    parallel loop, and run with the target's core count even when the calling thread's TVM pool was
    already created at TVM's default (half the cores on x86, so one core here)."""
    import threading

    from tensortune.core.targets import default_cpu_target
    from tensortune.core.threads import runtime_threads, target_cores
    from tensortune.models.build import build_model, to_database
    from tensortune.models.check import SUFFIX
    from tensortune.models.importer import load_model
    from tensortune.models.pipeline import profile_rows

    monkeypatch.setenv("TVM_NUM_THREADS", "1")  # restored after the test
    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    target = {**default_cpu_target(), "num-cores": 2}
    schedules, result = _random_schedules(m, target)
    assert len(schedules) == 2
    built = build_model(m, target, to_database(schedules, target))
    tuned = {c + SUFFIX for t, r in zip(result.tasks, result.rows, strict=True) if r.best_values for c in t.callers}
    assert tuned and tuned <= built.parallel_functions(), f"compiled without a parallel loop: {tuned - built.parallel_functions()}"
    # the check can fail: TVM's default lowering of the same model has no parallel loop at all
    assert not build_model(m, target).parallel_functions()
    x = m.example_input()
    seen: list[int] = []

    def from_a_thread_with_a_default_pool() -> None:
        os.environ["TVM_NUM_THREADS"] = "1"  # this thread's pool is created at 1 worker...
        assert runtime_threads() == 1
        seen.append(built.threads_inside(x))  # ...the model still runs its kernels on 2

    t = threading.Thread(target=from_a_thread_with_a_default_pool)
    t.start()
    t.join()
    assert seen == [target_cores(target)] == [2]
    prof, rest = profile_rows(result, built.profile(x, runs=2, standalone=True))
    assert {p.task for p in prof if p.tuned_us} == {r.name for r in result.rows if r.best_values}
    # each task's functions were also timed called alone (on copies of the tensors the model gave them)
    assert all(p.standalone_us is not None and p.standalone_us > 0 for p in prof)
    assert all(p.in_model_us > 0 and p.calls >= 1 for p in prof) and rest >= 0
    convs = [p for p in prof if p.tuned_us]  # the fastest conv could gain nothing, the others >= 0
    assert min(p.could_gain_ms for p in convs) == 0.0 and all(p.could_gain_ms >= 0 for p in prof)
    assert abs(sum(p.share for p in prof) + rest / (rest + sum(p.in_model_us * p.calls * 1e-6 for p in prof)) - 1) < 1e-6


def test_a_slow_task_is_told_apart_from_a_slow_machine_by_its_time_alone() -> None:
    from tensortune.models.pipeline import SLOW_FLAG, ProfileRow

    def row(in_model: float, alone: float | None) -> ProfileRow:
        return ProfileRow("conv", "template", 1, 100.0, in_model, 1.0, standalone_us=alone)

    assert row(120.0, 100.0).slow_because is None and not row(120.0, 100.0).slow  # within the flag
    assert row(140.0, 130.0).slow and row(140.0, 130.0).slow_because == "machine"  # alone as slow: the machine
    assert row(140.0, 100.0).slow_because == "model"  # alone as tuned, slow only inside the model
    assert row(140.0, None).slow and row(140.0, None).slow_because is None  # not timed alone: no cause claimed
    assert row(SLOW_FLAG * 100.0 * 1.2, 101.0).slow_because == "model"


def test_a_task_s_argument_bytes_and_memory_bound_rows_in_the_profile() -> None:
    """A task's bytes are its PrimFunc's buffer arguments; a row under MEMORY_BOUND_FLOP_PER_BYTE FLOPs a byte
    is memory-bound, and the profile prints its GB/s, marks it and says what that means."""
    from types import SimpleNamespace

    from rich.console import Console
    from tvm import te

    from tensortune.cli.model_cmds import render_profile
    from tensortune.models.pipeline import MEMORY_BOUND_FLOP_PER_BYTE, ProfileRow
    from tensortune.models.tasks import prim_func_arg_bytes

    x = te.placeholder((1, 64), name="x")
    w = te.placeholder((32, 64), name="w", dtype="float32")
    k = te.reduce_axis((0, 64), name="k")
    y = te.compute((1, 32), lambda i, j: te.sum(x[i, k] * w[j, k], axis=k), name="y")
    assert prim_func_arg_bytes(te.create_prim_func([x, w, y])) == (64 + 32 * 64 + 32) * 4
    h = te.placeholder((8,), name="h", dtype="float16")
    assert prim_func_arg_bytes(te.create_prim_func([h, te.compute((8,), lambda i: h[i] * 2, name="o")])) == 32

    # AlexNet's first dense layer (75.5 MFLOP, 151 MB of weights) at 5 ms, and a ResNet-18 conv at 1 ms
    dense = ProfileRow("fc1", "MetaSchedule space", 1, 3000.0, 5000.0, 0.4, 75.5e6, arg_bytes=151_000_000,
                       standalone_us=4800.0)
    conv = ProfileRow("conv", "template", 1, 1000.0, 1050.0, 0.1, 232e6, arg_bytes=2_400_000)
    assert dense.memory_bound and not conv.memory_bound
    assert MEMORY_BOUND_FLOP_PER_BYTE * dense.arg_bytes > dense.flops
    assert dense.gbytes_per_s == pytest.approx(30.2)
    assert conv.gbytes_per_s == pytest.approx(2.4e6 / 1050e-6 / 1e9)
    assert ProfileRow("t", "TVM default", 1, None, 10.0, 0.0).gbytes_per_s == 0.0  # bytes unknown: no rate

    con = Console(record=True, width=250)
    rep = SimpleNamespace(model="m", threads=2, profile=[dense, conv], profile_other_ms=0.1, latency_ms={})
    render_profile(con, rep)
    text = con.export_text()
    assert "GB/s" in text and "30.2 (memory)" in text and "SLOW (alone too)" in text
    assert "follows the memory bandwidth" in text
    rep.profile = [conv]
    con = Console(record=True, width=250)
    render_profile(con, rep)
    assert "(memory)" not in con.export_text()


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs Linux and two cores")
def test_the_calling_thread_keeps_off_the_cores_of_tvms_pinned_workers(monkeypatch) -> None:
    """TVM pins its pool workers to cores 1..n-1 and lets the calling thread (which runs chunk 0 of each
    parallel loop) go anywhere; on a worker's core the pair runs every parallel kernel at half speed. A
    model run (``call_with_threads``) puts its thread on the cores no worker holds."""
    import threading

    from tensortune.core.threads import call_with_threads, pinned_cores

    cores = sorted(os.sched_getaffinity(0))
    out: list[tuple[set[int], set[int]]] = []

    def body() -> None:
        out.append(call_with_threads(2, lambda: (set(os.sched_getaffinity(0)), pinned_cores())))

    monkeypatch.setenv("TVM_NUM_THREADS", "2")
    t = threading.Thread(target=body)  # a fresh thread: the process's own affinity stays as it was
    t.start()
    t.join()
    mine, workers = out[0]
    assert workers, "TVM pinned no pool worker"  # the check can fail: without a worker there is nothing to avoid
    assert mine and not mine & workers and mine <= set(cores)
    assert sorted(os.sched_getaffinity(0)) == cores


def test_call_with_threads_gives_a_fresh_pool_when_the_thread_has_another(monkeypatch) -> None:
    import threading

    from tensortune.core.threads import call_with_threads, runtime_threads

    out: list[tuple[int, int]] = []

    def body() -> None:
        os.environ["TVM_NUM_THREADS"] = "1"
        first = runtime_threads()
        out.append((first, call_with_threads(2, runtime_threads)))

    monkeypatch.setenv("TVM_NUM_THREADS", "1")
    t = threading.Thread(target=body)
    t.start()
    t.join()
    assert out == [(1, 2)]
    with pytest.raises(KeyError):
        call_with_threads(1, lambda: {}["missing"])  # errors reach the caller


@pytest.mark.slow
def test_tune_user_model_end_to_end_and_export(task_env, capsys) -> None:
    from tvm.s_tir import meta_schedule as ms

    from tensortune.cli.main import main

    src = task_env / "tiny.py"
    src.write_text(TINY)
    db, rep, out = task_env / "t.db", task_env / "r.json", task_env / "msdb"
    # NCHW: plain TVM imports the model with its own frontend in NCHW, so only an NCHW run's records apply there
    import psutil

    children = {p.pid for p in psutil.Process().children(recursive=True)}
    rc = main(["tune", "--model", f"{src}:Tiny", "--layout", "NCHW", "--trials", "24", "--round-size", "8",
               "--batch-size", "8", "--compare", "untuned,eager,frozen,onnxruntime,plain-tvm,metaschedule", "--db", str(db), "--out", str(rep),
               "--no-progress", "--repeat", "3", "--min-repeat-ms", "5"])
    assert rc == 0
    left = [p for p in psutil.Process().children(recursive=True) if p.pid not in children]
    psutil.wait_procs(left, timeout=10)
    # Python's multiprocessing resource tracker (started by the first spawn, here ONNX Runtime's process) lives
    # as long as this process and exits with it; anything else still alive was left behind
    alive = [p for p in left if p.is_running() and p.status() != psutil.STATUS_ZOMBIE
             and "multiprocessing.resource_tracker" not in " ".join(p.cmdline())]
    assert not alive, [" ".join(p.cmdline())[:300] for p in alive]  # no peer or worker process left
    report = json.loads(rep.read_text())
    assert report["trials"] == 24
    # where the tuning time went (stop 104): measuring, search, transfer sources and the rest add up to the wall time
    split = report["tuning_split_s"]
    assert set(split) == {"measure_s", "search_s", "prior_s", "rest_s"} and split["measure_s"] > 0
    assert split["search_s"] > 0 and all(v >= 0 for v in split.values())
    assert sum(split.values()) == pytest.approx(report["tuning_wall_s"], abs=0.01)
    assert sum(t["measure_s"] for t in report["tasks"]) == pytest.approx(split["measure_s"], abs=0.01)
    assert sum(t["search_s"] for t in report["tasks"]) == pytest.approx(split["search_s"], abs=0.01)
    hows = {t["tuned_by"] for t in report["tasks"]}
    assert "tensortune template" in hows  # the convolutions
    assert sum(t["trials"] for t in report["tasks"]) == 24
    for name, err in report["max_abs_error"].items():
        assert err < 1e-3, name
    # "tensortune": the tuned build written as a library and timed in a process of its own (TVM runtime alone);
    # "tensortune (this process)": the same build in the tuning process, where the profile runs
    assert set(report["latency_ms"]) == {"tensortune", "tensortune (this process)", "TVM untuned", "PyTorch eager",
                                         "PyTorch frozen", "ONNX Runtime", "plain TVM", "MetaSchedule"}
    assert set(report["max_abs_error"]) == set(report["latency_ms"])  # every peer's output was checked
    assert not report["skipped"]
    assert list(task_env.glob("tensortune-*/tvm.log"))  # the run's work dir, where the library was written
    assert not list(task_env.glob("tensortune-*/tensortune-timing-*"))  # and went with its process
    assert all(len(v) >= 3 for v in report["repeats_ms"].values()) and report["sgemm_gflops"] > 0
    ms_trials = [t["metaschedule_trials"] for t in report["tasks"]]  # same budget for MetaSchedule
    assert 0 < sum(ms_trials) <= 24 and report["metaschedule_tuning_wall_s"] > 0
    assert any(t["metaschedule_best_s"] for t in report["tasks"])
    # the profile: every tuned task inside the built model, next to its tuned time
    tuned = {t["name"] for t in report["tasks"] if t["best_s"]}
    prof = {p["task"]: p for p in report["profile"]}
    assert tuned <= set(prof) and all(prof[t]["tuned_us"] > 0 and prof[t]["ratio"] > 0 for t in tuned)
    assert all(prof[t]["standalone_us"] > 0 for t in tuned)  # and called alone in the same rounds
    assert report["threads"] == os.cpu_count()
    # plain TVM (its own torch import + static_shape_tuning_pipeline) applied every tuned conv from our export
    tuned_convs = {t["name"] for t in report["tasks"] if t["best_s"] and t["kind"] == "conv2d"}
    assert tuned_convs and tuned_convs <= set(report["plain_tvm_applied"])
    printed = capsys.readouterr().out
    assert f"measuring {split['measure_s']:.0f} s" in printed  # the tuning time's split, under the task table
    assert "per task inside the built model" in printed and "alone now us" in printed and "Unroll hint" not in printed
    assert "the profiled inferences (instrumented, in the timing rounds) sum to" in printed  # beside the latency
    assert os.path.getsize(report["log_path"]) > 0  # TVM's own lines went to the run's log
    assert main(["export", "--format", "metaschedule", "--db", str(db), "--out", str(out)]) == 0
    jdb = ms.database.JSONDatabase(str(out / "database_workload.json"), str(out / "database_tuning_record.json"))
    tuned_rows = [t for t in report["tasks"] if t["trials"] > 0]
    assert len(jdb) == len(tuned_rows)
    # the stored run: profile it, and write it as a library that a fresh process loads with TVM alone
    prof_out = task_env / "profile.json"
    assert main(["profile", "--model", f"{src}:Tiny", "--layout", "NCHW", "--db", str(db), "--out", str(prof_out),
                 "--rounds", "12"]) == 0
    printed = capsys.readouterr().out
    assert "per task inside the built model" in printed and "tuning time" not in printed  # nothing tuned here
    again = json.loads(prof_out.read_text())
    assert {p["task"] for p in again["profile"]} == set(prof) and again["latency_ms"]["tensortune"] > 0
    assert len(again["repeats_ms"]["tensortune"]) == 12  # --rounds: one repeat per round
    assert main(["profile", "--model", f"{src}:Tiny", "--layout", "NCHW", "--db", str(db), "--rounds", "9"]) == 2
    assert main(["profile", "--model", f"{src}:Tiny", "--layout", "NCHW", "--db", str(db),
                 "--out", str(task_env / "no" / "p.json")]) == 2  # checked before any work
    lib = task_env / "tiny.so"
    assert main(["build", "--model", f"{src}:Tiny", "--layout", "NCHW", "--db", str(db), "--out", str(lib)]) == 0
    meta = json.loads((task_env / "tiny.json").read_text())
    assert lib.exists() and meta["check"]["against"] == "PyTorch" and meta["check"]["max_abs_error"] < 1e-4
    assert main(["build", "--model", f"{src}:Tiny", "--layout", "NCHW", "--db", str(db), "--out", str(lib)]) == 2  # exists: refused
    assert main(["build", "--model", f"{src}:Tiny", "--layout", "NCHW", "--db", str(db), "--out", str(task_env / "no" / "x.so")]) == 2


def test_deployed_library_runs_with_the_tvm_runtime_alone(task_env) -> None:
    """The README's loading lines, in a fresh interpreter that imports no tensortune module."""
    import subprocess
    import sys

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.build import build_model
    from tensortune.models.deploy import write_library
    from tensortune.models.importer import load_model

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    x = m.example_input()
    lib = str(task_env / "m.so")
    write_library(build_model(m, default_cpu_target()), lib, model="tiny", input_shape=m.input_shape,
                  input_dtype="float32", x=x, ref=m.torch_output(x))
    np.save(task_env / "x.npy", x)
    code = textwrap.dedent(f"""
        import os, sys; os.environ.setdefault("TVM_NUM_THREADS", "2")
        import numpy as np, tvm
        from tvm.runtime.vm import VirtualMachine
        vm = VirtualMachine(tvm.runtime.load_module({lib!r}), tvm.cpu())
        y = vm["main"](tvm.runtime.tensor(np.load({str(task_env / "x.npy")!r})))
        y = (y if isinstance(y, tvm.runtime.Tensor) else y[0]).numpy()  # torch imports return a tuple
        assert not [k for k in sys.modules if k.startswith("tensortune")]
        np.save({str(task_env / "y.npy")!r}, y)
    """)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=300)
    np.testing.assert_allclose(np.load(task_env / "y.npy"), m.torch_output(x), rtol=1e-4, atol=1e-5)


def _tiny_conv_task(task_env):
    """The tiny model's first conv task and this CPU's TVM target (for MetaSchedule runs)."""
    import tvm

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.importer import load_model
    from tensortune.models.tasks import extract_tasks

    src = task_env / "tiny.py"
    src.write_text(TINY)
    target = tvm.target.Target(default_cpu_target())
    _, tasks = extract_tasks(load_model(f"{src}:Tiny"), target)
    return next(t for t in tasks if t.kind == "conv2d"), target


@pytest.mark.slow
def test_tensortune_strategy_inside_metaschedule(task_env) -> None:
    from tvm.s_tir import meta_schedule as ms

    from tensortune.integrations.metaschedule_build import close_runner, cpu_builder
    from tensortune.integrations.metaschedule_strategy import TensortuneStrategy

    conv, target = _tiny_conv_task(task_env)
    runner = ms.runner.LocalRunner(evaluator_config=ms.runner.EvaluatorConfig(number=1, repeat=1))
    try:
        db = ms.tune_tir(conv.mod, target, str(task_env / "ms"), max_trials_global=8, num_trials_per_iter=4,
                         strategy=TensortuneStrategy("autotvm", seed=0), builder=cpu_builder(), runner=runner)
    finally:
        close_runner(runner)
    recs = db.get_all_tuning_records()
    assert 1 <= len(recs) <= 8  # the strategy never asks for more than the budget
    ok = [r for r in recs if r.run_secs is not None and all(float(s) < 1.0 for s in r.run_secs)]
    assert len(ok) == len(recs), f"{len(recs) - len(ok)} of {len(recs)} candidates failed to build or run"
    assert os.path.exists(task_env / "ms")


@pytest.mark.slow
def test_tensortune_strategy_resumes_from_metaschedule_database(task_env) -> None:
    """A rerun in the same work directory reads what MetaSchedule's database holds and proposes none
    of it again (before, it proposed the same configs)."""
    from tvm.s_tir import meta_schedule as ms

    from tensortune.integrations.metaschedule_build import close_runner, cpu_builder
    from tensortune.integrations.metaschedule_strategy import TensortuneStrategy

    conv, target = _tiny_conv_task(task_env)
    work = str(task_env / "ms-resume")
    runner = ms.runner.LocalRunner(evaluator_config=ms.runner.EvaluatorConfig(number=1, repeat=1))
    try:
        for _ in range(2):
            db = ms.tune_tir(conv.mod, target, work, max_trials_global=6, num_trials_per_iter=6,
                             strategy=TensortuneStrategy("random", seed=0), builder=cpu_builder(), runner=runner)
    finally:
        close_runner(runner)
    recs = db.get_all_tuning_records()
    traces = [str(r.trace.as_json(remove_postproc=True)) for r in recs]
    assert len(recs) == 12, len(recs)  # both sessions measured their budget
    assert len(set(traces)) == 12  # and the second proposed nothing the first had measured


@pytest.mark.slow
def test_metaschedule_peer_resumes_an_interrupted_run_within_its_budget(task_env) -> None:
    """The MetaSchedule peer of ``tune --model --compare metaschedule`` (2 h at 2,000 measurements on 2
    cores) can be interrupted and rerun: the records of the earlier session count toward the budget,
    a torn last record (killed mid-append) is dropped, and the wall time adds up the sessions."""
    import time

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import MS_RECORDS, MS_WALL, tune_with_metaschedule

    conv, _ = _tiny_conv_task(task_env)
    work, target = str(task_env / "ms-peer"), default_cpu_target()
    said: list[str] = []
    _, wall1 = tune_with_metaschedule([conv], target, 4, work, per_iter=4, status=said.append)
    rec = os.path.join(work, MS_RECORDS)
    first = open(rec).read().splitlines()
    assert len(first) == 4 and wall1 > 0 and not said
    # a killed second session: it logged its start, measured nothing, and left a torn line behind
    sessions = json.load(open(os.path.join(work, MS_WALL)))
    killed = time.time() - 1000.0
    sessions.append({"start": killed, "end": None})
    json.dump(sessions, open(os.path.join(work, MS_WALL), "w"))
    with open(rec, "a") as f:
        f.write(first[-1][: len(first[-1]) // 2])
    os.utime(rec, (killed + 10.0, killed + 10.0))  # its last record came 10 s after it started
    db, wall = tune_with_metaschedule([conv], target, 6, work, per_iter=4, status=said.append)
    lines = open(rec).read().splitlines()
    assert lines[:4] == first and len(lines) == 6  # only the missing 2 were tuned, after the 4 kept
    assert len(db.get_all_tuning_records()) == 6
    assert "resuming, 4 of 6" in said[0]
    # the killed session counts up to its last record (the file's mtime, kept by the repair), not to now
    assert wall1 + 10.0 < wall < wall1 + 10.0 + 300.0
    said.clear()
    _, wall_again = tune_with_metaschedule([conv], target, 6, work, per_iter=4, status=said.append)
    assert len(open(rec).read().splitlines()) == 6 and "already fill the budget" in said[0]
    assert wall_again == pytest.approx(wall, abs=1e-6)


def test_metaschedule_logging_survives_foreign_handlers(tmp_path) -> None:
    """Regression (CI stop 12): after one MetaSchedule run, pytest attaches an unnamed capture handler
    to MetaSchedule's non-propagating logger, and the next tune_tir crashed in its logging set-up."""
    import logging

    from tvm.s_tir.meta_schedule.logging import get_loggers_from_work_dir

    from tensortune.integrations.metaschedule_strategy import detach_foreign_meta_schedule_log_handlers

    ms_logger = logging.getLogger("tvm.s_tir.meta_schedule")
    saved = (list(ms_logger.handlers), ms_logger.propagate)
    foreign = logging.StreamHandler()
    try:
        ms_logger.propagate = False
        ms_logger.addHandler(foreign)
        with pytest.raises(AttributeError):
            get_loggers_from_work_dir(str(tmp_path / "a"), ["t0"])
        ms_logger.addHandler(foreign)
        detach_foreign_meta_schedule_log_handlers()
        assert foreign not in ms_logger.handlers
        loggers = get_loggers_from_work_dir(str(tmp_path / "b"), ["t0"])
        assert len(loggers) == 1 and (tmp_path / "b" / "logs").is_dir()
    finally:
        for h in list(ms_logger.handlers):
            ms_logger.removeHandler(h)
        for h in saved[0]:
            ms_logger.addHandler(h)
        ms_logger.propagate = saved[1]


@pytest.mark.slow
def test_a_wrong_kernel_inside_the_model_is_stored_and_replaced_by_the_next_best(task_env, monkeypatch) -> None:
    """Per-kernel check (models issue): a tuned config that computes a wrong answer inside the built
    model (here: a schedule made to round the padded input to integers) is caught against TVM's
    default lowering on the real tensors, stored as WRONG_ANSWER for its task, and the build is
    retried with that task's next-best config; every later read of the run skips it."""
    from tensortune.core.targets import default_cpu_target
    from tensortune.core.values import ErrorKind
    from tensortune.models.build import build_model
    from tensortune.models.flow import _run_id, plan_tasks, stored_result
    from tensortune.models.importer import load_model
    from tensortune.models.pipeline import checked_build
    from tensortune.storage import SQLiteStorage
    from tensortune.storage.records import TuningRecord
    from tensortune.templates.tir_schedules import FusedConv2d

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    target = default_cpu_target()
    _, _, rows = plan_tasks(m, target)
    row = next(r for r in rows if r.template == "conv2d_nchw_fused.llvm")
    sp = row.task.space
    fast, slow = sp.sample(2, np.random.default_rng(0))
    storage = SQLiteStorage(str(task_env / "r.db"))
    storage.add([TuningRecord(row.task.key, row.task.target_json, sp.to_json(c), sp.index_of(c), (t,),
                              run_id=_run_id(row, "autotvm", 0), tuner="model-autotvm", flops=int(row.flops))
                 for c, t in ((fast, 1e-4), (slow, 2e-4))])
    res = stored_result(m, target, storage)
    tuned = next(r for r in res.rows if r.name == row.name)
    assert tuned.best_values == sp.to_json(fast)
    original = FusedConv2d.schedule

    def poisoned(self, wl, values):  # the fast config is wrong: its padded input is rounded to int32
        sch = original(self, wl, values)
        if values == sp.to_json(fast):
            sch.unsafe_set_dtype(sch.get_sblock("pad_temp"), 0, "int32")
        return sch

    monkeypatch.setattr(FusedConv2d, "schedule", poisoned)
    seen: list[str] = []
    x = m.example_input()
    built, wrong = checked_build(m, target, res, build_model(m, target), x, storage=storage, status=seen.append)
    assert [w["task"] for w in wrong] == [row.name] and wrong[0]["config"] == sp.to_json(fast)
    assert len(seen) == 1 and row.name in seen[0] and "WRONG_ANSWER" in seen[0]
    assert tuned.best_values == sp.to_json(slow)  # the next best, in the rebuilt model
    np.testing.assert_allclose(built.run(x), m.torch_output(x), rtol=1e-3, atol=1e-4)
    checks = [r for r in storage.records(row.task.key) if r.kind == "check"]
    assert len(checks) == 1 and checks[0].error == ErrorKind.WRONG_ANSWER and checks[0].config_index == sp.index_of(fast)
    assert storage.best(row.task.key, row.task.target_json)[0].config_index == sp.index_of(slow)
    again = stored_result(m, target, storage)  # a later build or resume never takes it again
    assert next(r for r in again.rows if r.name == row.name).best_values == sp.to_json(slow)


def _simulate(alloc, rounds: int = 60) -> list[int]:
    """Three conv tasks of equal weight and FLOPs. Task 0 is stuck after its first round at a tenth of its
    peers' throughput; tasks 1 and 2 keep improving, less with every round (best = 1 ms x (1 + 1/n))."""
    ts = [TaskProgress(1, 1e8, "conv2d", 10**6) for _ in range(3)]
    picks = []
    for _ in range(rounds):
        i = alloc.pick(ts)
        picks.append(i)
        t = ts[i]
        t.trials += 16
        n = len(t.history) + 1
        t.history.append((t.trials, 1e-2 if i == 0 else 1e-3 * (1 + 1 / n)))
    return picks


def test_gradient_allocator_does_not_starve_tasks_behind_a_stuck_one() -> None:
    ansor = _simulate(GradientAllocator(seed=0, epsilon=0.0, patience=None))
    assert ansor.count(0) > 50  # Ansor's optimistic term alone: the stuck task takes almost every round
    ours = _simulate(GradientAllocator(seed=0, epsilon=0.0))
    # its first round, `patience` stale rounds, then a few while its promise halves with every round without a
    # gain; once the others' gains fall under 0.5% a round (from their 14th) they rest too and all share
    assert ours[:30].count(0) <= 1 + 3 + 3
    assert ours.count(0) <= 15
    assert ours.count(1) >= 20 and ours.count(2) >= 20
    assert TaskProgress(1, 1.0, "x", 9, history=[(1, 5.0), (2, 4.0), (3, 4.0), (4, 3.999)]).stale_rounds() == 2


def test_heavy_tasks_that_rested_come_back_before_a_light_one_that_improves_by_noise() -> None:
    """Stop 42's ResNet-18 at 2,000 gave 100 measurements to its 1 us mean (its best kept dropping by the
    noise of so short a kernel) and 56 to each 512-channel conv, which had rested after three rounds
    without a gain and never came back: resting tasks were set aside while any task still improved."""
    a = GradientAllocator(seed=0, epsilon=0.0)
    heavy = [TaskProgress(1, 2.3e8, "conv2d", 10**6, trials=72,
                          history=[(8, 6e-4), (24, 5.6e-4), (40, 5.6e-4), (56, 5.6e-4), (72, 5.6e-4)])
             for _ in range(3)]
    assert all(h.stale_rounds() == 3 for h in heavy)
    light = TaskProgress(1, 5e5, "reduction", 10**6, trials=20, history=[(4, 1.2e-6), (20, 1.1e-6)])
    assert light.stale_rounds() == 0
    assert a.pick([*heavy, light]) in (0, 1, 2)


def test_when_every_task_rests_the_rounds_are_shared() -> None:
    """Once every task rested, their observed gains (zero, or noise under 0.5%) decided: a VGG-16 run at
    2,000 (stop 42) gave its first big conv 51 rounds in a row without a 0.5% gain. Now a resting task's
    promise halves with every round it spends without a gain."""
    a = GradientAllocator(seed=0, epsilon=0.0)
    ts = [TaskProgress(1, 3.7e9, "conv2d", 10**6) for _ in range(4)]
    for t in ts:
        t.trials, t.history = 64, [(16, 8e-3), (32, 7e-3), (48, 7e-3), (64, 7e-3), (64, 7e-3)]
    picks = []
    for _ in range(40):
        i = a.pick(ts)
        picks.append(i)
        ts[i].trials += 16
        ts[i].history.append((ts[i].trials, 7e-3))  # no gain
    assert all(picks.count(i) >= 8 for i in range(4)), picks



@pytest.mark.slow
def test_every_heavy_cnn_operator_is_tuned_and_checked(task_env) -> None:
    """Coverage: conv2d (1x1, 3x3, 7x7, strided), max pooling and dense by our templates; depthwise and grouped
    conv2d and global average pooling (a mean) by MetaSchedule's space; the report says how each task was tuned,
    and every tuned kernel passed its per-kernel check against TVM's default lowering."""
    from tensortune.cli.main import main

    src = task_env / "cover.py"
    src.write_text(COVER)
    rep = task_env / "r.json"
    assert main(["tune", "--model", f"{src}:Cover", "--trials", "64", "--round-size", "8", "--batch-size", "8",
                 "--compare", "eager", "--db", str(task_env / "c.db"), "--out", str(rep), "--no-progress",
                 "--repeat", "3", "--min-repeat-ms", "5"]) == 0
    report = json.loads(rep.read_text())
    how = {}
    for t in report["tasks"]:
        how.setdefault(t["kind"], set()).add(t["tuned_by"])
    # every conv runs blocked (--layout auto is the default): the 3-channel stem reads NCHW3c
    assert how["conv2d"] == {"tensortune template (blocked)"}
    for kind in ("depthwise_conv2d", "group_conv2d"):
        assert how[kind] == {"MetaSchedule space"}, (kind, how)
    assert how["dense"] == {"tensortune template (dense)"}
    pools = {t["name"]: t["tuned_by"] for t in report["tasks"] if t["kind"] == "pool"}
    assert list(pools.values()) == ["tensortune template"] and "max_pool" in next(iter(pools)), pools
    # the global average pool lowers to a mean (a reduction), which MetaSchedule's space tunes
    assert {t["tuned_by"] for t in report["tasks"] if t["kind"] == "reduction"} == {"MetaSchedule space"}
    heavy = [t for t in report["tasks"] if t["kind"] not in ("elementwise",)]
    assert all(t["tuned_by"] != "TVM default" for t in heavy)
    assert all(t["trials"] > 0 for t in heavy)  # the allocator gave every heavy task measurements
    for name, err in report["max_abs_error"].items():
        assert err < 1e-3, name


def test_the_auto_layout_blocks_channels_by_the_vector_width_of_the_target() -> None:
    """``--layout auto`` blocks channels by the fp32 lanes of the target CPU's widest vector register, from
    LLVM's features of its name and -mattr; a target that is not a CPU gets 4."""
    from tensortune.core.targets import fp32_vector_lanes
    from tensortune.models.layout import channel_block

    assert channel_block("auto", {"kind": "llvm", "mcpu": "skylake-avx512"}) == 16
    assert channel_block("auto", {"kind": "llvm", "mcpu": "znver3"}) == 8
    assert channel_block("auto", {"kind": "llvm", "mcpu": "x86-64"}) == 4  # SSE2 only
    assert channel_block("auto", {"kind": "llvm", "mcpu": "skylake-avx512", "mattr": ["-avx512f"]}) == 8
    assert channel_block("auto", {"kind": "cuda"}) == 4
    assert fp32_vector_lanes({"avx", "avx2", "avx512f"}) == 16 and fp32_vector_lanes(set()) == 4


@pytest.mark.slow
def test_blocked_layout_stays_blocked_between_convolutions(task_env) -> None:
    """NCHW16c: every ResNet-18 conv but the 3-channel stem reads and writes blocked activations, with
    its batch norm, residual add and ReLU fused; layout transforms run only where the model changes
    layout (after the stem's max pool, before the global pool); no weight is transformed at run time."""
    import tvm
    from tvm import relax

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.importer import load_model
    from tensortune.models.layout import apply_layout, channel_block
    from tensortune.models.tasks import _calls, extract_tasks
    from tensortune.templates import get_template
    from tensortune.templates.tir_schedules import blocked_conv_params
    from tensortune.workloads.tir import TirWorkload, task_dir

    target = default_cpu_target()
    assert channel_block("NCHW", target) is None and channel_block("NCHW8c", target) == 8
    with pytest.raises(ValueError, match="unknown layout"):
        channel_block("NHWC", target)
    m = apply_layout(load_model("resnet18"), "NCHW16c", target)
    fused, tasks = extract_tasks(m, tvm.target.Target(target))
    calls = _calls(fused)
    convs = [t for t in tasks if t.kind == "conv2d"]
    blocked = [t for t in convs if "conv2d_NCHWc" in t.name]
    # every conv, the stem on 3 colour channels included (NCHW3c input, NCHW16c output)
    assert sum(t.weight for t in convs) == 20 and sum(t.weight for t in blocked) == 20
    stems = []
    for t in blocked:
        assert "relu" in t.name or "add" in t.name  # the epilogue is fused into the conv
        from tensortune.models.tasks import save_task

        save_task(t, task_dir())
        conv, block = blocked_conv_params(TirWorkload(t.key))
        assert block == 16 and get_template("conv2d_nchwc_fused.llvm").supports(TirWorkload(t.key))
        if conv.in_channels == 3:
            stems.append(tuple(TirWorkload(t.key).arg_specs[0][0]))
    assert stems == [(1, 1, 224, 224, 3)], stems
    # the stem's max pool runs blocked: a pool reads the 5-d NCHW16c tensor
    assert any("max_pool2d" in c for c in calls)
    transforms = [c for c in calls if "layout_transform" in c]
    assert len(transforms) <= 2, transforms  # the input into NCHW3c, out of the blocked layout before the classifier

    def constant_args(expr: object) -> None:
        if (isinstance(expr, relax.Call) and getattr(expr.op, "name", "") == "relax.call_tir"
                and "layout_transform" in expr.args[0].name_hint):
            assert not any(isinstance(a, tvm.ir.expr.Constant) for a in expr.args[1].fields), "a weight transformed per run"

    relax.analysis.post_order_visit(fused["main"].body, constant_args)


@pytest.mark.slow
def test_blocked_model_tunes_builds_and_matches_pytorch(task_env) -> None:
    from tensortune.cli.main import main

    src = task_env / "tiny.py"
    src.write_text(TINY)
    rep = task_env / "r.json"
    assert main(["tune", "--model", f"{src}:Tiny", "--layout", "NCHW8c", "--trials", "16", "--round-size", "8",
                 "--batch-size", "8", "--compare", "eager", "--db", str(task_env / "t.db"), "--out", str(rep),
                 "--no-progress", "--repeat", "3", "--min-repeat-ms", "5", "--confirm-top", "2",
                 "--confirm-rounds", "1"]) == 0
    report = json.loads(rep.read_text())
    # --winograd auto (the default): the stem on 3 channels stays direct, the 16-channel 3x3 conv is Winograd
    assert {"tensortune template (blocked)", "tensortune template (Winograd)"} <= {t["tuned_by"] for t in report["tasks"]}
    # --confirm-top: the tasks with two good configs had them measured again on this CPU before the build
    confirm = report["confirm"]
    # 2 configs x 1 round a task, more where an unconfirmed config overtook a confirmed one (another pass)
    assert confirm["tasks"] >= 1 and confirm["measurements"] >= 2 * confirm["tasks"]
    for name, err in report["max_abs_error"].items():
        assert err < 1e-3, name
    # profile and build read the same layout back
    assert main(["profile", "--model", f"{src}:Tiny", "--layout", "NCHW8c", "--db", str(task_env / "t.db")]) == 0


@pytest.mark.slow
def test_whole_model_time_limit_stops_tuning(task_env) -> None:
    from helpers import LandscapeMeasurer  # no kernels are built: the limit is the loop's, not the measurer's
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import tune_model
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage

    class Slow(LandscapeMeasurer):
        def measure(self, inputs):
            import time

            time.sleep(0.05 * len(inputs))
            return [type(r)(costs=(1e-3,)) for r in super().measure(inputs)]

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    res = tune_model(m, default_cpu_target(), measurer=Slow((0,)), storage=SQLiteStorage(str(task_env / "t.db")),
                     trials=10_000, round_size=8, time_limit=3.0)
    assert "time limit of 3 s reached" in res.stop_reason
    assert 0 < res.trials < 10_000


@pytest.mark.slow
def test_a_task_the_budget_never_reached_gets_a_transferred_schedule(task_env) -> None:
    from helpers import (
        LandscapeMeasurer,  # no kernels are built: what is tested is which config each task gets
    )
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import mark_wrong, stored_result, tune_model
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage

    class Fixed(LandscapeMeasurer):
        def measure(self, inputs):
            return [type(r)(costs=(1e-3,)) for r in super().measure(inputs)]

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    for transfer in (False, True):
        res = tune_model(m, default_cpu_target(), measurer=Fixed((0,)), transfer=transfer, trials=1, round_size=8,
                         storage=SQLiteStorage(str(task_env / f"t{transfer}.db")))
        convs = [r for r in res.rows if r.kind == "conv2d"]
        assert len(convs) == 2 and sorted(r.trials for r in convs) == [0, 1]  # the budget reached one conv
        assert max(convs, key=lambda r: r.trials).flops > min(convs, key=lambda r: r.trials).flops  # the heavier
        idle = next(r for r in convs if r.trials == 0)
        # a build or profile of the stored run (``stored_result``, with the transfer the run was tuned with)
        # builds what the run did
        storage = SQLiteStorage(str(task_env / f"t{transfer}.db"))
        stored = next(r for r in stored_result(m, default_cpu_target(), storage, transfer=transfer).rows
                      if r.name == idle.name)
        assert stored.best_values == idle.best_values and stored.how == idle.how
        if transfer:
            assert idle.best_values is not None and "transferred (not measured)" in idle.how
            assert idle.task.space.is_valid(idle.task.space.from_json(idle.best_values))
            assert idle.best_values in [s.values for s in res.schedules()]  # it is built with it
            # a transferred config that fails its check inside the model is stored so, and a later build takes
            # the next candidate of the transfer, never that one
            mark_wrong(stored, storage, "autotvm", 0, "max abs error 1.0e+00")
            assert stored.best_values is None and "transferred" not in stored.how
            again = next(r for r in stored_result(m, default_cpu_target(), storage, transfer=True).rows
                         if r.name == idle.name)
            assert again.best_values != idle.best_values
            assert again.best_values is None or "transferred (not measured)" in again.how
        else:
            assert idle.best_values is None  # TVM's default lowering


@pytest.mark.slow
def test_a_budget_smaller_than_a_round_per_task_reaches_every_task(task_env) -> None:
    """First rounds share what is left among the tasks still without one (a ResNet-18 run at 200
    measurements and 16 a round left 5 convs at TVM's default lowering, 190 ms instead of 27), and the
    heaviest task (calls x FLOPs) goes first."""
    from helpers import LandscapeMeasurer
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import tune_model
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    order: list[str] = []
    res = tune_model(m, default_cpu_target(), measurer=LandscapeMeasurer((0,)), transfer=False, trials=9,
                     round_size=8, storage=SQLiteStorage(str(task_env / "split.db")),
                     on_round=lambda _k, r, _total: order.append(r.name))
    tuned = [r for r in res.rows if r.task is not None]
    assert len(tuned) >= 3 and res.trials == 9
    assert all(r.trials > 0 for r in tuned), [(r.name, r.trials) for r in tuned]  # every task was reached
    assert order[0] == max(tuned, key=lambda r: r.weight * r.flops).name


@pytest.mark.slow
def test_a_transferred_task_gets_half_a_first_round(task_env) -> None:
    """The allocator's first round of a task that starts from transferred schedules is half a round (its
    curve starts higher), so the budget reaches more tasks."""
    from helpers import LandscapeMeasurer
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import tune_model
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    spent: dict[bool, list[int]] = {}
    for transfer in (False, True):
        rounds: list[int] = []
        tune_model(m, default_cpu_target(), measurer=LandscapeMeasurer((0,)), transfer=transfer, trials=40,
                   round_size=8, storage=SQLiteStorage(str(task_env / f"h{transfer}.db")),
                   on_round=lambda k, r, total, acc=rounds: acc.append(total))
        spent[transfer] = [b - a for a, b in zip([0, *rounds[:-1]], rounds, strict=True)]
    # without transfer: the heavy conv a full round, the light one (16% of the FLOPs) its share of 40
    assert spent[False][:2] == [8, 6]
    assert spent[True][:2] == [8, 4] and sum(spent[True]) == 40  # half a round, then the rest goes on


@pytest.mark.slow
def test_a_whole_model_run_confirms_each_tasks_top_configs(task_env) -> None:
    from helpers import LandscapeMeasurer
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import _run_id, tune_model
    from tensortune.models.importer import load_model

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    from tensortune.storage import SQLiteStorage

    st = SQLiteStorage(str(task_env / "t.db"))
    meas = LandscapeMeasurer((0,))
    res = tune_model(m, default_cpu_target(), measurer=meas, storage=st, transfer=False, trials=40, round_size=8,
                     confirm_top=2, confirm_rounds=2)
    assert res.trials == 40  # the re-measurements are not counted in the budget
    c = res.confirm
    tuned = [r for r in res.rows if r.task is not None and r.trials >= 2]
    assert c is not None and c.tasks == len(tuned) >= 2 and c.measurements == 2 * 2 * c.tasks
    for r in tuned:
        rem = st.records(r.task.key, r.task.target_json, _run_id(r, "autotvm", 0), kind="remeasure")
        assert len(rem) == 2
        assert r.best_values == st.best(r.task.key, r.task.target_json, 1, _run_id(r, "autotvm", 0))[0].config
    # resumed with the budget already spent: nothing measured, nothing confirmed again
    meas.calls.clear()
    again = tune_model(m, default_cpu_target(), measurer=meas, storage=st, transfer=False, trials=40, round_size=8,
                       confirm_top=2, confirm_rounds=2)
    assert meas.calls == [] and again.confirm is not None and again.confirm.tasks == 0
    off = tune_model(m, default_cpu_target(), measurer=meas, storage=SQLiteStorage(str(task_env / "off.db")),
                     transfer=False, trials=16, round_size=8)
    assert off.confirm is None  # off by default
    from tensortune.cli.main import main

    assert main(["tune", "--model", f"{src}:Tiny", "--trials", "8", "--db", str(task_env / "cli.db"),
                 "--confirm-top", "1"]) == 2  # checked before any work
    assert not (task_env / "cli.db").exists()


@pytest.mark.slow
def test_a_whole_model_run_can_confirm_inside_its_budget(task_env) -> None:
    """--confirm-share: the confirmation's measurements come out of --trials; the heaviest tasks (calls x best
    time) are confirmed first, while the kept-back share holds a task's top x rounds."""
    from helpers import LandscapeMeasurer
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import _run_id, tune_model
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")

    def measured(meas: LandscapeMeasurer) -> int:
        return sum(len(c) for c in meas.calls)

    def run(meas: LandscapeMeasurer, st: SQLiteStorage, share: float) -> tuple:
        res = tune_model(m, default_cpu_target(), measurer=meas, storage=st, transfer=False, trials=40, round_size=8,
                         confirm_top=2, confirm_rounds=2, confirm_share=share)
        return res, res.confirm, [r for r in res.rows if r.task is not None and r.trials >= 2]

    meas = LandscapeMeasurer((0,))
    st = SQLiteStorage(str(task_env / "in.db"))
    res, c, tuned = run(meas, st, 0.4)
    assert c is not None and c.limit == 16 and res.trials == 24  # 16 of the 40 kept back from the search
    assert c.tasks == len(tuned) >= 2 and c.left_out == 0 and c.measurements == 2 * 2 * c.tasks <= c.limit
    assert measured(meas) == res.trials + c.measurements <= 40  # every measurement counted once, in the budget
    # resumed: the search and the confirmation are both done, nothing is measured again
    meas.calls.clear()
    again, _, _ = run(meas, st, 0.4)
    assert meas.calls == [] and again.trials == 24 and again.confirm is not None and again.confirm.measurements == 0

    # a share that holds one task's top x rounds: only the heaviest task (calls x best time) is confirmed
    meas = LandscapeMeasurer((0,))
    st = SQLiteStorage(str(task_env / "one.db"))
    res, c, tuned = run(meas, st, 0.1)
    assert c is not None and c.limit == 4 and c.tasks == 1 and c.measurements == 4
    assert c.left_out == len(tuned) - 1 >= 1
    heaviest = max(tuned, key=lambda r: r.weight * r.best_s)
    for r in tuned:
        rem = st.records(r.task.key, r.task.target_json, _run_id(r, "autotvm", 0), kind="remeasure")
        assert len(rem) == (2 if r is heaviest else 0), r.name
    assert measured(meas) == 40

    with pytest.raises(ValueError, match="confirm_top"):
        tune_model(m, default_cpu_target(), measurer=meas, storage=st, transfer=False, trials=40, confirm_share=0.1)
    from tensortune.cli.main import main

    for bad in (["--confirm-share", "0.2"], ["--confirm-top", "2", "--confirm-share", "1"]):
        assert main(["tune", "--model", f"{src}:Tiny", "--trials", "8", "--db", str(task_env / "cli.db"), *bad]) == 2
    assert not (task_env / "cli.db").exists()  # checked before any work


def _run_one_input(mod: object, target: dict, x: np.ndarray, out_shape: tuple[int, ...]) -> np.ndarray:
    """Compile a one-input function for the target and return its output on ``x``."""
    import tvm

    lib = tvm.compile(mod, target=tvm.target.Target(target))
    out = tvm.runtime.tensor(np.zeros(out_shape, "float32"))
    lib["main"](tvm.runtime.tensor(x), out)
    return out.numpy()

def test_layout_transforms_are_tuned_by_the_copy_template_and_every_config_is_exact(task_env) -> None:
    """The model's input transform into the blocked layout (NCHW to NCHW3c) is a task of ``copy.llvm``:
    loops in the output's order, a parallel and an inner-loop knob; every config writes exactly what
    TVM's default lowering writes, and a config with a parallel knob compiles to a parallel loop."""
    import itertools

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import COPY, plan_tasks
    from tensortune.models.importer import load_model
    from tensortune.models.layout import apply_layout
    from tensortune.templates import get_template

    src = task_env / "tiny.py"
    src.write_text(TINY)
    target = default_cpu_target()
    model = apply_layout(load_model(f"{src}:Tiny"), "NCHW8c", target)
    _, _, rows = plan_tasks(model, target)
    copies = [r for r in rows if r.template == COPY]
    stem_in = [r for r in copies if r.task.workload.arg_specs[0][0] == (1, 3, 16, 16)]
    assert len(stem_in) == 1, [(r.name, r.how) for r in rows]
    row = stem_in[0]
    assert row.how == "tensortune template (data movement)" and row.kind == "elementwise"
    wl, tmpl = row.task.workload, get_template(COPY)
    sp = tmpl.space(wl)
    knobs = {k.name: k.options for k in sp.knobs}
    assert 0 in knobs["parallel"] and max(knobs["parallel"]) > 0 and "unroll" in knobs["inner"]
    shapes = [s for s, _ in wl.arg_specs]
    x = np.random.default_rng(0).standard_normal(shapes[0]).astype("float32")

    def run(mod: object) -> np.ndarray:
        return _run_one_input(mod, target, x, shapes[-1])

    ref = run(wl.mod)
    assert np.array_equal(ref.reshape(shapes[-1]), np.moveaxis(x, 1, -1).reshape(shapes[-1]))  # NCHW3c
    for vals in itertools.product(*knobs.values()):
        v = dict(zip(knobs, vals, strict=True))
        mod = tmpl.instantiate(wl, v)
        assert np.array_equal(run(mod), ref), v
        assert ("T.parallel" in mod.script()) == (v["parallel"] > 0), v


@pytest.mark.parametrize("layout", ["NCHW8c", "NCHW"])
def test_max_pool_template_covers_blocked_and_plain_pools_and_every_config_is_exact(task_env, layout) -> None:
    """``max_pool.llvm`` takes the model's max pool (3x3/2, padded) in the blocked and the plain layout;
    every config of its space computes exactly what TVM's default lowering computes, in a parallel loop."""
    import itertools

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import POOL, plan_tasks
    from tensortune.models.importer import load_model
    from tensortune.models.layout import apply_layout
    from tensortune.templates import get_template

    src = task_env / "cover.py"
    src.write_text(COVER)
    target = default_cpu_target()
    model = apply_layout(load_model(f"{src}:Cover"), layout, target)
    _, _, rows = plan_tasks(model, target)
    pools = [r for r in rows if r.template == POOL]
    assert [r.kind for r in pools] == ["pool"] and "max_pool" in pools[0].name, [(r.name, r.how) for r in rows]
    wl, tmpl = pools[0].task.workload, get_template(POOL)
    shapes = [s for s, _ in wl.arg_specs]
    assert len(shapes[0]) == (5 if layout != "NCHW" else 4)
    x = np.random.default_rng(0).standard_normal(shapes[0]).astype("float32")

    def run(mod: object) -> np.ndarray:
        return _run_one_input(mod, target, x, shapes[-1])

    ref = run(wl.mod)
    knobs = {k.name: k.options for k in tmpl.space(wl).knobs}
    assert len(list(itertools.product(*knobs.values()))) > 4
    for vals in itertools.product(*knobs.values()):
        v = dict(zip(knobs, vals, strict=True))
        mod = tmpl.instantiate(wl, v)
        assert np.array_equal(run(mod), ref), v
        assert "T.parallel" in mod.script() and "pad_temp" not in mod.script(), v  # padding inline


@pytest.mark.skipif(not os.path.exists("/proc/stat") or not hasattr(os, "sched_setaffinity"),
                    reason="reads /proc/stat and pins a process (Linux)")
def test_a_core_busy_with_other_work_is_seen_and_named() -> None:
    """Before timing a model, the cores are checked: a process spinning on core 0 is reported with its
    share, and the warning says what it does to TVM's timings; an idle core is not reported."""
    import subprocess
    import sys

    from tensortune.core.load import busy_cores, describe_busy

    hog = subprocess.Popen([sys.executable, "-c", "import os\nos.sched_setaffinity(0, {0})\nwhile True: pass"])
    try:
        import time

        time.sleep(0.3)
        busy = busy_cores(0.5)
    finally:
        hog.kill()
        hog.wait()
    assert 0 in busy and busy[0] > 0.8, busy
    line = describe_busy(busy)
    assert line.startswith("WARNING") and "core 0" in line and "tensortune profile" in line
    assert describe_busy({}) == ""


def test_column_tail_register_tiles_are_offered_and_exact(task_env) -> None:
    """``--conv-space tails``: the blocked conv template also offers register tiles of output columns that
    do not divide the width (16 here: 3, 5, 6, 7, 9 ... 15 columns, the last tile of a row predicated), and
    every such config computes what TVM's default lowering computes, the fused epilogue included."""
    import tvm

    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import plan_tasks
    from tensortune.models.importer import load_model
    from tensortune.models.layout import apply_layout
    from tensortune.templates import get_template
    from tensortune.transfer.features import TransferFeatures

    src = task_env / "tiny.py"
    src.write_text(TINY)
    target = default_cpu_target()
    model = apply_layout(load_model(f"{src}:Tiny"), "NCHW8c", target)
    _, _, rows = plan_tasks(model, target, conv_space="tails")
    convs = [r for r in rows if r.template == "conv2d_nchwc_fused.llvm-tails"]
    assert len(convs) == 2 and all("column tails" in r.how for r in convs), [(r.name, r.how) for r in rows]
    rng = np.random.default_rng(0)
    for r in convs:
        wl, sp = r.task.workload, r.task.space
        shapes = [s for s, _ in wl.arg_specs]
        width = shapes[-1][3]
        tile_x = sp.knob("tile_x").options
        tails = [t for t in tile_x if t[0] * t[1] * t[2] != width]
        assert sorted(t[2] for t in tails) == [c for c in range(2, width) if width % c] == [3, 5, 6, 7, 9, 10, 11, 12,
                                                                                                13, 14, 15]
        assert all(t == (-(-width // t[2]), 1, t[2]) for t in tails)
        assert tile_x[0] == (width, 1, 1)  # the dividing options first, unchanged
        # the records of the default blocked template (and its shipped corpus) teach this space
        assert TransferFeatures(r.task).signature[0] == "conv2d_nchwc_fused.llvm"
        arrays = [rng.standard_normal(s).astype("float32") for s in shapes[:-1]]

        def run(mod: object, arrays: list[np.ndarray] = arrays, out_shape: tuple = shapes[-1]) -> np.ndarray:
            lib = tvm.compile(mod, target=tvm.target.Target(target))
            out = tvm.runtime.tensor(np.zeros(out_shape, "float32"))
            lib["main"](*[tvm.runtime.tensor(a) for a in arrays], out)
            return out.numpy()

        ref = run(wl.mod)
        checked = 0
        for cfg in sp.sample(60, rng):
            v = sp.to_json(cfg)
            if tuple(v["tile_x"]) not in tails:
                continue
            got = run(get_template(r.template).instantiate(wl, v))
            np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4, err_msg=str(v))
            checked += 1
            if checked == 3:
                break
        assert checked >= 2, "too few sampled configs had a column tail"


TWINS_MODEL = textwrap.dedent('''
    import torch
    from torch import nn

    class Twins(nn.Module):
        example_input_shape = (1, 3, 16, 16)

        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.stem = nn.Conv2d(3, 16, 3, padding=1)
            self.a = nn.Conv2d(16, 16, 3, padding=1)
            self.b = nn.Conv2d(16, 16, 3, padding=1)

        def forward(self, x):
            y = torch.relu(self.stem(x))
            y = torch.relu(self.a(y) + y)  # the same conv as b, with a residual add fused after it
            return torch.relu(self.b(y))
''')


def test_twin_tasks_pool_their_measurements_when_the_best_configs_are_chosen(task_env) -> None:
    """Two convs of one shape that differ only in their fused epilogue are twins: the database's records of
    one are the other's own evidence in transfer (``TransferPrior.twin``), and each takes the fastest config
    measured on either (a config found on one serves both), but never one that failed its check on it."""
    import time

    from tensortune.core.targets import default_cpu_target
    from tensortune.core.values import ErrorKind
    from tensortune.models.flow import _run_id, mark_wrong, plan_tasks, stored_result
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage
    from tensortune.storage.records import TuningRecord
    from tensortune.transfer import TransferFeatures, TransferPrior
    from tensortune.transfer.prior import twins

    src = task_env / "twins.py"
    src.write_text(TWINS_MODEL)
    m = load_model(f"{src}:Twins")
    target = default_cpu_target()
    _, _, rows = plan_tasks(m, target)
    convs = [r for r in rows if r.kind == "conv2d"]
    pairs = [(x, y) for i, x in enumerate(convs) for y in convs[i + 1:]
             if x.template == y.template and twins(TransferFeatures(x.task).shape, TransferFeatures(y.task).shape)]
    assert len(convs) == 3 and len(pairs) == 1  # the stem is nobody's twin
    a, b = pairs[0]
    assert a.task.key != b.task.key
    sp = a.task.space
    c1, c2, c3 = (sp.config(i) for i in (0, 1, 2))
    st = SQLiteStorage(str(task_env / "t.db"))

    def put(row, cfg, ms, error=ErrorKind.NONE, kind="trial"):
        st.add([TuningRecord(task_key=row.task.key, target_key=row.task.target_json, config=sp.to_json(cfg),
                             config_index=sp.index_of(cfg), costs=(ms * 1e-3,) if error == ErrorKind.NONE else (),
                             error=error, tuner="model-autotvm", run_id=_run_id(row, "autotvm", 0), seed=0, kind=kind,
                             flops=int(row.flops), timestamp=time.time(), task_name=row.name)])

    put(a, c1, 1.0)
    put(a, c2, 2.0)
    put(b, c2, 1.5)
    put(b, c3, 1.2)
    prior = TransferPrior.from_storage(st, b.task)
    assert [s.name for s, t in zip(prior.sources, prior.twin, strict=True) if t] == [a.task.key]
    res = stored_result(m, target, st)
    got = {r.name: r for r in res.rows}
    assert got[a.name].best_values == sp.to_json(c1) and got[a.name].best_s == pytest.approx(1e-3)
    assert got[b.name].best_values == sp.to_json(c1) and got[b.name].best_s == pytest.approx(1e-3)
    assert "config of its twin" in got[b.name].how and "twin" not in got[a.name].how
    mark_wrong(got[b.name], st, "autotvm", 0, "wrong on b")  # c1 fails b's check inside the built model
    assert got[b.name].best_values == sp.to_json(c3) and "twin" not in got[b.name].how
    again = {r.name: r for r in stored_result(m, target, st).rows}
    assert again[b.name].best_values == sp.to_json(c3) and again[a.name].best_values == sp.to_json(c1)
    # the task's own measurement of the pooled config was an outlier: the config and the twin's time, labelled
    st2 = SQLiteStorage(str(task_env / "t2.db"))
    st = st2
    put(a, c1, 1.0)
    put(b, c1, 5.0)
    put(b, c3, 1.2)
    got = {r.name: r for r in stored_result(m, target, st2).rows}
    assert got[b.name].best_values == sp.to_json(c1) and got[b.name].best_s == pytest.approx(1e-3)
    assert got[b.name].how.endswith(f"time measured on its twin {a.name[:40]}") and "config of" not in got[b.name].how
    assert got[a.name].how == "tensortune template"  # its own best, its own time: no label
    mark_wrong(got[b.name], st2, "autotvm", 0, "wrong on b")
    assert got[b.name].best_values == sp.to_json(c3) and "twin" not in got[b.name].how


@pytest.mark.slow
@pytest.mark.parametrize("transfer", [False, True])
def test_twins_are_tuned_as_one_task_for_their_calls_together(task_env, transfer) -> None:
    """A whole-model run tunes a twin group as one task (``flow.TWIN_GROUPS``): its heaviest twin is measured for
    the group's calls together, the other measures nothing and is built with the head's config; a config that fails
    the other's check inside the model falls back to the head's next-best; a resumed run counts what was spent."""
    from helpers import LandscapeMeasurer
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import _run_id, _tuning_units, mark_wrong, stored_result, tune_model
    from tensortune.models.importer import load_model
    from tensortune.storage import SQLiteStorage

    src = task_env / "twins.py"
    src.write_text(TWINS_MODEL)
    m = load_model(f"{src}:Twins")
    st = SQLiteStorage(str(task_env / "t.db"))
    meas = LandscapeMeasurer((0,))
    order: list[str] = []
    res = tune_model(m, default_cpu_target(), measurer=meas, storage=st, transfer=transfer, trials=24, round_size=8,
                     on_round=lambda _k, r, _total: order.append(r.name))
    tuned = [r for r in res.rows if r.task is not None]
    units, calls = _tuning_units(tuned)
    assert len(units) == len(tuned) - 1
    convs = [r for r in tuned if r.kind == "conv2d"]
    head = next(r for r in convs if r in units and calls[units.index(r)] == 2)
    other = next(r for r in convs if r is not head and r.name != convs[0].name and r not in units)

    def own(r):
        return st.records(r.task.key, r.task.target_json, _run_id(r, "autotvm", 0), kind="trial")

    assert own(other) == [] and other.trials == 0 and other.name not in order
    assert len(own(head)) == head.trials > 0 and res.trials == 24 == sum(len(own(r)) for r in tuned)
    assert other.best_values == head.best_values is not None and "config of its twin" in other.how
    assert other.best_values in [s.values for s in res.schedules()]  # built with the head's config
    # resumed with the budget spent: nothing measured
    meas.calls.clear()
    again = tune_model(m, default_cpu_target(), measurer=meas, storage=st, transfer=transfer, trials=24, round_size=8)
    assert meas.calls == [] and again.trials == 24
    # the head's config computes a wrong answer on the other twin: it takes the head's next-best, not none
    rows = stored_result(m, default_cpu_target(), st, transfer=transfer).rows
    o = next(r for r in rows if r.name == other.name)
    h = next(r for r in rows if r.name == head.name)
    ranked = [x.config for x in st.best(h.task.key, h.task.target_json, k=1 << 30, run_id=_run_id(h, "autotvm", 0))]
    assert o.best_values == ranked[0]
    mark_wrong(o, st, "autotvm", 0, "wrong on the other twin", rows)
    assert o.best_values == ranked[1] and "config of its twin" in o.how
    assert h.best_values == ranked[0]  # the head keeps its own


DENSE_NET = textwrap.dedent('''
    import torch
    from torch import nn

    class Mlp(nn.Module):
        """Two dense layers on a batch of 2: matmul + bias + relu, then matmul + bias."""
        example_input_shape = (2, 48)

        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.fc1 = nn.Linear(48, 40)
            self.fc2 = nn.Linear(40, 12)

        def forward(self, x):
            return self.fc2(torch.relu(self.fc1(x)))
''')


def test_dense_template_takes_a_models_dense_layers_and_every_config_is_right(task_env) -> None:
    """``dense_fused.llvm`` takes a model's fused dense layers (matmul + bias, with or without relu; not the
    MetaSchedule space any more): its knobs split rows, output features (down to vector lanes) and the
    reduction; random configs of its space compute what TVM's default lowering computes, in a parallel loop
    with the weight rewritten to the loop nest's order. Transfer reads the layer's shape as a dense layer's."""
    from tensortune.core.targets import default_cpu_target
    from tensortune.models.flow import DENSE, plan_tasks
    from tensortune.models.importer import load_model
    from tensortune.templates import get_template
    from tensortune.templates.base import InstantiationError
    from tensortune.templates.cpu_dense_fused import dense_params
    from tensortune.transfer.features import shape_features
    from tensortune.workloads import Dense

    src = task_env / "mlp.py"
    src.write_text(DENSE_NET)
    target = default_cpu_target()
    _, _, rows = plan_tasks(load_model(f"{src}:Mlp"), target)
    dense = [r for r in rows if r.kind == "dense"]
    assert len(dense) == 2 and all(r.template == DENSE and r.how == "tensortune template (dense)" for r in dense), \
        [(r.name, r.how) for r in rows]
    tmpl = get_template(DENSE)
    got = sorted(dense_params(r.task.workload) for r in dense)
    assert got == [(2, 40, 12), (2, 48, 40)]
    rng = np.random.default_rng(0)
    for r in dense:
        wl = r.task.workload
        m, k, n = dense_params(wl)
        assert "relu" in r.name or n == 12
        sp = tmpl.space(wl)
        assert [kn.name for kn in sp.knobs][:3] == ["tile_y", "tile_x", "tile_k"] and sp.size > 50
        # the shape columns are a dense layer's of the same sizes (the epilogue moves only the FLOP count)
        assert np.array_equal(shape_features(wl)[:-1], shape_features(Dense.make(m, k, n))[:-1])
        inputs = wl.make_inputs(seed=1)
        ref = wl.reference(inputs)
        for cfg in sp.sample(6, rng):
            v = sp.to_json(cfg)
            mod = tmpl.instantiate(wl, v)
            script = mod.script()
            assert "T.parallel" in script and "T.vectorized" in script, v
            assert "layout_rewrite" in script or "preproc" in script, v  # the weight follows the loop nest
            np.testing.assert_allclose(_run(mod, target, inputs, ref.shape), ref, rtol=1e-4, atol=1e-4,
                                       err_msg=str(v))
    single = Dense.make(2, 48, 40)  # a single layer is dense.llvm's, not this template's
    assert not tmpl.supports(single)
    with pytest.raises(InstantiationError, match="not a dense layer"):
        tmpl.space(single)


def _run(mod: object, target: dict, inputs: list[np.ndarray], out_shape: tuple[int, ...]) -> np.ndarray:
    """Compile a function for the target and return its output on ``inputs``."""
    import tvm

    lib = tvm.compile(mod, target=tvm.target.Target(target))
    out = tvm.runtime.tensor(np.zeros(out_shape, "float32"))
    lib["main"](*[tvm.runtime.tensor(a) for a in inputs], out)
    return out.numpy()
