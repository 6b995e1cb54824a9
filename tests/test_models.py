"""Whole models: import (PyTorch, user file, ONNX), task extraction, allocators, tuned build, export,
and our explorers inside MetaSchedule as a PySearchStrategy."""

from __future__ import annotations

import json
import math
import os
import textwrap

import numpy as np
import pytest

from tensortune.tuners.multitask import GradientAllocator, RoundRobin, TaskProgress

TINY = textwrap.dedent('''
    import torch
    from torch import nn

    class Tiny(nn.Module):
        example_input_shape = (1, 3, 16, 16)

        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = nn.Conv2d(3, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            y = torch.relu(self.conv2(y) + y)
            return self.fc(y.mean(dim=(2, 3)))
''')


def test_round_robin_cycles_and_skips_exhausted() -> None:
    ts = [TaskProgress(1, 1e6, "conv2d", 100), TaskProgress(1, 1e6, "conv2d", 5, trials=5), TaskProgress(1, 1e6, "x", 100)]
    rr = RoundRobin()
    assert [rr.pick(ts) for _ in range(4)] == [0, 2, 0, 2]
    for t in ts:
        t.trials = t.space_size
    assert rr.pick(ts) is None


def test_gradient_allocator_warms_up_then_follows_the_weighted_gain() -> None:
    a = GradientAllocator(seed=0, epsilon=0.0)
    ts = [TaskProgress(1, 1e8, "conv2d", 10**6), TaskProgress(4, 1e8, "conv2d", 10**6)]
    assert a.pick(ts) == 0  # every task gets a first round
    ts[0].trials, ts[0].history = 16, [(16, 1e-3)]
    assert a.pick(ts) == 1
    ts[1].trials, ts[1].history = 16, [(16, 1e-3)]
    # same latency and progress, but task 1 runs 4 times per inference: its gain counts 4 times
    assert a.pick(ts) == 1
    # task 0 is far slower than its peer's throughput suggests: the optimistic term favours it
    ts[0].history = [(8, 9e-3), (16, 8e-3)]
    ts[1].history = [(8, 1e-3), (16, 1e-3)]
    assert a.pick(ts) == 0
    assert all(math.isfinite(g) for g in a.last_gradients)


@pytest.fixture()
def task_env(tmp_path, monkeypatch):
    monkeypatch.setenv("TENSORTUNE_TASK_DIR", str(tmp_path / "tasks"))
    return tmp_path


@pytest.mark.slow
def test_resnet18_extraction_weights_and_template_coverage(task_env) -> None:
    import tvm

    from tensortune.measure.tvm_measurer import default_cpu_target
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

    from tensortune.measure.tvm_measurer import default_cpu_target
    from tensortune.models.build import build_model, run_model
    from tensortune.models.importer import load_model

    path = str(task_env / "tiny.onnx")
    w, b = _onnx_model(path)
    m = load_model(path)
    assert m.source == "onnx" and m.input_shape == (1, 3, 8, 8)
    x = m.example_input()
    ref = torch.relu(torch.nn.functional.conv2d(torch.from_numpy(x), torch.from_numpy(w), torch.from_numpy(b), padding=1))
    out = run_model(build_model(m, default_cpu_target()), x)
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


@pytest.mark.slow
def test_tune_user_model_end_to_end_and_export(task_env, capsys) -> None:
    from tvm.s_tir import meta_schedule as ms

    from tensortune.cli.main import main

    src = task_env / "tiny.py"
    src.write_text(TINY)
    db, rep, out = task_env / "t.db", task_env / "r.json", task_env / "msdb"
    rc = main(["tune", "--model", f"{src}:Tiny", "--trials", "24", "--round-size", "8", "--batch-size", "8",
               "--compare", "untuned,eager,metaschedule", "--db", str(db), "--out", str(rep), "--no-progress",
               "--repeat", "3", "--min-repeat-ms", "5"])
    assert rc == 0
    report = json.loads(rep.read_text())
    assert report["trials"] == 24
    hows = {t["tuned_by"] for t in report["tasks"]}
    assert "tensortune template" in hows  # the convolutions
    assert sum(t["trials"] for t in report["tasks"]) == 24
    for name, err in report["max_abs_error"].items():
        assert err < 1e-3, name
    assert set(report["latency_ms"]) == {"tensortune", "TVM untuned", "PyTorch eager", "MetaSchedule"}
    assert set(report["max_abs_error"]) == {"tensortune", "TVM untuned", "MetaSchedule"}
    ms_trials = [t["metaschedule_trials"] for t in report["tasks"]]  # same budget for MetaSchedule
    assert 0 < sum(ms_trials) <= 24 and report["metaschedule_tuning_wall_s"] > 0
    assert any(t["metaschedule_best_s"] for t in report["tasks"])
    assert main(["export", "--format", "metaschedule", "--db", str(db), "--out", str(out)]) == 0
    jdb = ms.database.JSONDatabase(str(out / "workload.json"), str(out / "tuning_record.json"))
    tuned = [t for t in report["tasks"] if t["trials"] > 0]
    assert len(jdb) == len(tuned)


@pytest.mark.slow
def test_tensortune_strategy_inside_metaschedule(task_env) -> None:
    import tvm
    from tvm.s_tir import meta_schedule as ms

    from tensortune.measure.tvm_measurer import default_cpu_target
    from tensortune.models.importer import load_model
    from tensortune.models.ms_build import cpu_builder
    from tensortune.models.tasks import extract_tasks
    from tensortune.tuners.ms_strategy import TensortuneStrategy

    src = task_env / "tiny.py"
    src.write_text(TINY)
    m = load_model(f"{src}:Tiny")
    target = tvm.target.Target(default_cpu_target())
    _, tasks = extract_tasks(m, target)
    conv = next(t for t in tasks if t.kind == "conv2d")
    db = ms.tune_tir(conv.mod, target, str(task_env / "ms"), max_trials_global=8, num_trials_per_iter=4,
                     strategy=TensortuneStrategy("autotvm", seed=0),
                     builder=cpu_builder(),
                     runner=ms.runner.LocalRunner(evaluator_config=ms.runner.EvaluatorConfig(number=1, repeat=1)))
    recs = db.get_all_tuning_records()
    assert 1 <= len(recs) <= 8  # the strategy never asks for more than the budget
    ok = [r for r in recs if r.run_secs is not None and all(float(s) < 1.0 for s in r.run_secs)]
    assert len(ok) == len(recs), f"{len(recs) - len(ok)} of {len(recs)} candidates failed to build or run"
    assert os.path.exists(task_env / "ms")


def test_metaschedule_logging_survives_foreign_handlers(tmp_path) -> None:
    """Regression (CI stop 12): after one MetaSchedule run, pytest attaches an unnamed capture handler
    to MetaSchedule's non-propagating logger, and the next tune_tir crashed in its logging set-up."""
    import logging

    from tvm.s_tir.meta_schedule.logging import get_loggers_from_work_dir

    from tensortune.tuners.ms_strategy import detach_foreign_meta_schedule_log_handlers

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
