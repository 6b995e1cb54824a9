"""The whole-model pipeline after tuning: build with the tuned schedules, check every build against
PyTorch, profile the tuned build per task, time it beside the peers, and return one report that the
CLI only renders."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

from tensortune.core.load import busy_cores, describe_busy
from tensortune.core.logs import native_log
from tensortune.core.threads import target_cores
from tensortune.models.allocation import MEMORY_BOUND_FLOP_PER_BYTE
from tensortune.models.build import BuiltModel, KernelTime, build_model, max_error, to_database
from tensortune.models.check import SUFFIX, check_kernels
from tensortune.models.flow import ModelTuneResult, mark_wrong, metaschedule_best, tune_with_metaschedule
from tensortune.models.importer import ImportedModel
from tensortune.models.peers import (
    PEERS,
    Contender,
    error_line,
    library_process,
    prepare_peer,
    sgemm_gflops,
    time_interleaved,
)
from tensortune.models.plain_tvm import build_plain_tvm, export_schedules

SLOW_FLAG = 1.25  # in-model time over tuned time that marks a task in the profile
PROFILE = "(per-task profile)"  # the profiler's name among the timed contenders
# the tuned build: "tensortune" is its written library timed in a process of its own (what a user deploys),
# IN_PROCESS the same build timed in the tuning process, the per-task profile's process
IN_PROCESS = "tensortune (this process)"
BUILDS = ("untuned", "plain-tvm", "metaschedule")
COMPARE = PEERS + BUILDS




@dataclass
class ProfileRow:
    """A task inside the built model next to its tuned time."""

    task: str
    how: str
    calls: float  # per inference, as counted while profiling
    tuned_us: float | None  # best measured time per call, None for untuned tasks
    in_model_us: float  # median per call inside the model
    share: float  # of the profiled inference time
    flops: float = 0.0  # per call
    # what the model would save per inference if this task ran at the rate (FLOP/s, in the model) of
    # the fastest task of its kind: how much tuning it could still pay back
    could_gain_ms: float = 0.0
    # its functions called alone now, in the same rounds, timed as tuned (median per call); None if not timed
    standalone_us: float | None = None
    arg_bytes: int = 0  # per call: the size of its arguments (inputs, weights, output)

    @property
    def memory_bound(self) -> bool:
        """Fewer than MEMORY_BOUND_FLOP_PER_BYTE FLOPs per byte of its arguments: its time follows the
        memory bandwidth (which on a shared host drifts more than the FMA rate), not the FLOP rate."""
        return self.arg_bytes > 0 and self.flops < MEMORY_BOUND_FLOP_PER_BYTE * self.arg_bytes

    @property
    def gbytes_per_s(self) -> float:
        """Its arguments' bytes over its in-model time: the least memory traffic rate it sustains (for a
        memory-bound task, what to set against the machine's bandwidth rather than its FLOP rate)."""
        return self.arg_bytes / (self.in_model_us * 1e-6) / 1e9 if self.arg_bytes and self.in_model_us > 0 else 0.0

    @property
    def ratio(self) -> float | None:
        return self.in_model_us / self.tuned_us if self.tuned_us else None

    @property
    def slow(self) -> bool:
        r = self.ratio
        return r is not None and r > SLOW_FLAG

    @property
    def slow_because(self) -> str | None:
        """Why a slow task is slow: "machine" when it runs as slowly alone now (the machine is slower
        than when it was tuned: the in-model time is within the flag of the standalone time), "model"
        when only the model's run of it is slow, None when it is not slow or was not timed alone."""
        if not self.slow or not self.standalone_us:
            return None
        return "machine" if self.in_model_us <= SLOW_FLAG * self.standalone_us else "model"


def profile_rows(result: ModelTuneResult, kernels: list[KernelTime]) -> tuple[list[ProfileRow], float]:
    """Per task, its calls' time inside the model; the rest (VM builtins, functions of no task) as
    the second value, seconds per inference. A function's time per inference is its median call times
    its calls: on a host whose speed swings for seconds at a time, a mean follows the slow phases (a
    ResNet-18 profile's means summed to 38.0 ms beside a median latency of 32.7 ms in the same rounds)."""
    by_symbol = {k.symbol.removesuffix(SUFFIX): k for k in kernels}

    def per_inference(k: KernelTime) -> float:
        return k.median_s * k.calls

    total = sum(per_inference(k) for k in kernels) or 1.0
    rows, used = [], set()
    for row, task in zip(result.rows, result.tasks, strict=True):
        ks = [by_symbol[c] for c in task.callers if c in by_symbol]
        if not ks:
            continue
        used.update(k.symbol for k in ks)
        calls = sum(k.calls for k in ks)
        per_call = sum(per_inference(k) for k in ks) / calls
        tuned = row.best_s * 1e6 if row.task is not None and row.best_s < float("inf") else None
        alone = (sum(k.standalone_s * k.calls for k in ks) / calls * 1e6  # type: ignore[operator]
                 if all(k.standalone_s is not None for k in ks) else None)
        rows.append(ProfileRow(row.name, row.how, calls, tuned, per_call * 1e6, per_call * calls / total, row.flops,
                               standalone_us=alone, arg_bytes=task.arg_bytes))
    kinds = {r.name: r.kind for r in result.rows}
    best: dict[str, float] = {}
    for p in rows:
        if p.flops > 0:
            k = kinds[p.task]
            best[k] = max(best.get(k, 0.0), p.flops / (p.in_model_us * 1e-6))
    for p in rows:
        if p.flops > 0:
            rate = p.flops / (p.in_model_us * 1e-6)
            if rate >= best[kinds[p.task]]:  # the fastest of its kind: exactly nothing (no rounding residue)
                continue
            at_best_us = p.flops / best[kinds[p.task]] * 1e6
            p.could_gain_ms = max(p.in_model_us - at_best_us, 0.0) * p.calls / 1e3
    rest = sum(per_inference(k) for k in kernels if k.symbol not in used)
    return rows, rest


@dataclass
class ModelReport:
    model: str
    input_shape: list[int]
    target: dict[str, Any]
    threads: int
    trials: int
    tuning_wall_s: float
    tasks: list[dict[str, Any]]
    # ``tuning_wall_s`` split: measuring, searching, reading transfer sources, the rest (``ModelTuneResult.time_split``)
    tuning_split_s: dict[str, float] = field(default_factory=dict)
    profile: list[ProfileRow] = field(default_factory=list)
    profile_other_ms: float = 0.0
    latency_ms: dict[str, float] = field(default_factory=dict)
    repeats_ms: dict[str, list[float]] = field(default_factory=dict)
    max_abs_error: dict[str, float] = field(default_factory=dict)
    output_scale: float | None = None
    skipped: dict[str, str] = field(default_factory=dict)
    metaschedule_tuning_wall_s: float | None = None
    sgemm_gflops: float | None = None
    conv_gflops_in_model: dict[str, float] = field(default_factory=dict)
    wrong_kernels: list[dict[str, Any]] = field(default_factory=list)  # configs that failed the in-model check
    # --compare plain-tvm: the tuned functions TVM's standard pipeline applied from our export
    plain_tvm_applied: list[str] = field(default_factory=list)
    log_path: str | None = None
    busy_cores: dict[int, float] = field(default_factory=dict)  # cores other work used just before timing
    confirm: dict[str, Any] | None = None  # the top configs measured again before the build (models/confirm.py)

    def to_json(self) -> dict[str, Any]:
        d = asdict(self)
        d["profile"] = [{**asdict(p), "ratio": p.ratio, "slow": p.slow, "slow_because": p.slow_because,
                         "gbytes_per_s": p.gbytes_per_s}
                        for p in self.profile]
        return d


class MismatchError(ValueError):
    """A build's output does not match the reference."""


def _tasks_json(result: ModelTuneResult) -> list[dict[str, Any]]:
    return [{"name": r.name, "kind": r.kind, "calls": r.weight, "flops": r.flops, "tuned_by": r.how,
             "trials": r.trials, "best_s": r.best_s if r.best_s < float("inf") else None,
             "measure_s": round(r.measure_seconds, 3), "search_s": round(r.search_seconds, 3),
             "prior_s": round(r.prior_seconds, 3)} for r in result.rows]


def checked_build(model: ImportedModel, target: dict[str, Any], result: ModelTuneResult, reference: BuiltModel,
                  x: np.ndarray, *, storage: Any = None, recipe: str = "autotvm", seed: int = 0,
                  log_path: str | None = None, status: Callable[[str], None] = lambda _m: None,
                  ) -> tuple[BuiltModel, list[dict[str, Any]]]:
    """Build with the tuned schedules and check every tuned function against ``reference`` (TVM's
    default lowering) on the tensors of a real run. A wrong config is stored as a WRONG_ANSWER check
    record of its run, its task falls back to its next-best config, and the build is retried.
    Without ``storage`` a wrong kernel raises :class:`MismatchError`."""
    wrong: list[dict[str, Any]] = []
    for _ in range(sum(1 for r in result.rows if r.best_values) + 1):
        built = build_model(model, target, to_database(result.schedules(), target), log_path=log_path)
        owners = {c: r for t, r in zip(result.tasks, result.rows, strict=True) if r.best_values for c in t.callers}
        bad = check_kernels(built, reference, x, set(owners))
        if bad is None:
            return built, wrong
        row = owners[bad.symbol]
        msg = (f"task {row.name}: config {row.best_values} computes a wrong answer inside the model (call {bad.call}: "
               f"max abs error {bad.max_abs_error:.2e}, output max {bad.scale:.2e}, against TVM's default lowering)")
        wrong.append({"task": row.name, "config": row.best_values, "max_abs_error": bad.max_abs_error})
        if storage is None:
            raise MismatchError(msg)
        status(msg + "; stored as WRONG_ANSWER, rebuilding with its next-best config")
        mark_wrong(row, storage, recipe, seed, msg, result.rows)
    raise MismatchError("the tuned build is still wrong after falling back on every task")


def metaschedule_graph(model: ImportedModel, target: dict[str, Any], result: ModelTuneResult) -> tuple[Any, list[Any]]:
    """The model and tasks MetaSchedule tunes as a peer: the run's own, or, when the run rewrote convolutions
    as Winograd ones (``--winograd auto``), the direct-conv graph of the same layout, as a user of
    MetaSchedule's pipeline gets it (the tasks it shares with the run, such as strided convs, keep their
    per-task MetaSchedule columns)."""
    import dataclasses

    import tvm

    from tensortune.models.tasks import extract_tasks

    direct = model.extra.get("direct_mod")
    if direct is None:
        return model, result.tasks
    extra = {k: v for k, v in model.extra.items() if k not in ("direct_mod", "winograd")}
    ms_model = dataclasses.replace(model, mod=direct, extra=extra)
    _, tasks = extract_tasks(ms_model, tvm.target.Target(target))
    return ms_model, tasks


def evaluate(model: ImportedModel, target: dict[str, Any], result: ModelTuneResult, *, compare: list[str],
             work_dir: str, storage: Any = None, recipe: str = "autotvm", seed: int = 0, ms_trials: int = 0,
             ms_per_iter: int = 16, repeat: int = 10, min_repeat_ms: int = 200,
             status: Callable[[str], None] = lambda _m: None) -> tuple[ModelReport, BuiltModel]:
    """Build (tuned, checked per kernel; and the builds in ``compare``), check all outputs, profile
    the tuned one, time all back to back. Raises :class:`MismatchError` when a build's output is wrong."""
    bad = [c for c in compare if c not in COMPARE]
    if bad:
        raise ValueError(f"--compare takes {', '.join(COMPARE)}; not {', '.join(bad)}")
    threads = target_cores(target)
    log_path = os.path.join(work_dir, "tvm.log")
    x = model.example_input(seed)
    builds: dict[str, BuiltModel] = {}
    status("building the model with TVM's default lowering (the per-kernel reference)")
    reference = build_model(model, target, log_path=log_path)
    status("building the tuned model and checking each tuned kernel on the tensors of a real run")
    builds["tensortune"], wrong = checked_build(model, target, result, reference, x, storage=storage, recipe=recipe,
                                                seed=seed, log_path=log_path, status=status)
    rep = ModelReport(model.name, list(model.input_shape), target, threads, result.trials, result.wall_seconds,
                      _tasks_json(result), tuning_split_s=result.time_split(), wrong_kernels=wrong, log_path=log_path,
                      confirm=asdict(result.confirm) if result.confirm is not None else None)
    if "untuned" in compare:
        builds["TVM untuned"] = reference
    if "plain-tvm" in compare:
        if model.torch_module is None:
            rep.skipped["plain TVM"] = "needs a PyTorch model (it imports with TVM's torch frontend)"
        elif model.extra.get("layout"):
            rep.skipped["plain TVM"] = (f"the run is in {model.extra['layout']}, and TVM's pipeline imports the model "
                                        "in NCHW, where its records do not apply (tune with --layout NCHW for that)")
        else:
            export_dir = os.path.join(work_dir, "metaschedule-export")
            status(f"plain TVM: static_shape_tuning_pipeline(total_trials=0, cpu_weight_prepack=True) on the "
                   f"export in {export_dir}")
            export_schedules(result.schedules(), target, export_dir)
            with native_log(log_path):
                plain = build_plain_tvm(model.torch_module, x, target, export_dir)
            builds["plain TVM"] = plain
            tuned = {c for t, r in zip(result.tasks, result.rows, strict=True) if r.best_values for c in t.callers}
            rep.plain_tvm_applied = sorted(f.removesuffix(SUFFIX) for f in plain.parallel_functions()
                                           if f.removesuffix(SUFFIX) in tuned and f.endswith(SUFFIX))
    if "metaschedule" in compare:
        ms_dir = os.path.join(work_dir, f"metaschedule-{ms_trials}")
        ms_model, ms_tasks = metaschedule_graph(model, target, result)
        what = ("the same" if ms_model is model else
                "the direct-conv graph's (no Winograd: MetaSchedule has no x86 rule for it)")
        status(f"MetaSchedule: {what} {len(ms_tasks)} tasks and weights, {ms_trials} measurements, "
               f"{ms_per_iter} per iteration; work dir {ms_dir}")
        ms_db, rep.metaschedule_tuning_wall_s = tune_with_metaschedule(ms_tasks, target, ms_trials, ms_dir,
                                                                       seed=seed, per_iter=ms_per_iter,
                                                                       log_path=log_path, status=status)
        for row, (n, best) in zip(rep.tasks, metaschedule_best(result.tasks, ms_db), strict=True):
            row["metaschedule_trials"], row["metaschedule_best_s"] = n, best
        builds["MetaSchedule"] = build_model(ms_model, target, ms_db, log_path=log_path)
    ref = model.torch_output(x)
    if ref is not None:
        rep.output_scale = float(np.max(np.abs(ref)))
    for name, b in builds.items():  # check every build before timing any
        out = b.run(x)
        if ref is not None:
            err, scale = max_error(out, ref)
            rep.max_abs_error[name] = err
            if err > 1e-3 * max(scale, 1e-6) + 1e-5:
                raise MismatchError(f"{name} build does not match PyTorch's output: max abs error {err:.2e} "
                                    f"(output max {scale:.2e})")
    labels = {"eager": "PyTorch eager", "frozen": "PyTorch frozen", "onnxruntime": "ONNX Runtime"}
    contenders: list[Contender] = []
    lib_dir = tempfile.mkdtemp(prefix="tensortune-timing-", dir=work_dir)
    try:
        own = _own_process(builds["tensortune"], os.path.join(lib_dir, "model.so"), x, ref, log_path, status)
        if isinstance(own, str):  # the build is timed in this process alone, as "tensortune"
            rep.skipped["tensortune (own process)"] = own
        else:
            contenders.append(own[0])
            if "tensortune" in rep.max_abs_error:
                rep.max_abs_error[IN_PROCESS] = rep.max_abs_error["tensortune"]
                rep.max_abs_error["tensortune"] = own[1]
        in_process = "tensortune" if isinstance(own, str) else IN_PROCESS
        contenders += [b.contender(in_process if name == "tensortune" else name, x)
                       for name, b in builds.items() if name != "TVM untuned"]
        # the per-task profile is one more contender: its instrumented inferences run in the same rounds
        profiler, collect = builds["tensortune"].profiler(PROFILE, x, standalone=True)
        contenders.append(profiler)
        for peer in (c for c in PEERS if c in compare):  # each checked against PyTorch before any is timed
            p = prepare_peer(peer, model, x, ref, threads)
            if p.contender is None:
                rep.skipped[labels[peer]] = p.skipped
                continue
            p.contender.name = labels[peer]
            contenders.append(p.contender)
            if p.max_abs_error is not None:
                rep.max_abs_error[labels[peer]] = p.max_abs_error
        rep.busy_cores = busy_cores()
        if rep.busy_cores:
            status(describe_busy(rep.busy_cores))
        status(f"timing {', '.join(c.name for c in contenders if c is not profiler)}: {repeat} rounds, one repeat "
               "of each per round (interleaved), and profiling the tuned build per task in the same rounds")
        timings = time_interleaved(contenders, repeat, min_repeat_ms)
    finally:  # ONNX Runtime's and the library's processes go whatever happened, and the library with them
        for c in contenders:
            c.close()
        shutil.rmtree(lib_dir, ignore_errors=True)
    timings.pop(PROFILE)
    for name, t in timings.items():
        rep.latency_ms[name], rep.repeats_ms[name] = t.median_ms, t.repeats_ms
    rep.profile, other = profile_rows(result, collect())
    rep.profile_other_ms = other * 1e3
    for p in rep.profile:
        row = next(r for r in result.rows if r.name == p.task)
        if row.kind == "conv2d" and p.in_model_us > 0:
            rep.conv_gflops_in_model[p.task] = row.flops / (p.in_model_us * 1e-6) / 1e9
    if "TVM untuned" in builds:  # seconds a call: timed alone, three short repeats
        t = builds["TVM untuned"].time(x, repeat=3, min_repeat_ms=1)
        rep.latency_ms["TVM untuned"], rep.repeats_ms["TVM untuned"] = t.median_ms, t.repeats_ms
    rep.sgemm_gflops = sgemm_gflops(threads)
    return rep, builds["tensortune"]


def _own_process(built: BuiltModel, lib_path: str, x: np.ndarray, ref: np.ndarray | None, log_path: str | None,
                 status: Callable[[str], None]) -> tuple[Contender, float] | str:
    """The tuned build written as a library and run in a process of its own with the TVM runtime alone, as
    a user deploys it: a contender named "tensortune" and its output's max abs error against ``ref``; or
    why it cannot run so (the caller then times the build in this process alone). Stop 48's tune runs
    reported their model up to 20-25% slower than the same library timed later in fresh processes (their
    memory-bound kernels 1.1-1.7x slower alone than tuned); timing both in the same rounds tells a slow
    tuning process from a slow phase of the machine."""
    status("writing the tuned build as a library, to time it in a process of its own as well as in this one")
    expect = ref if ref is not None else built.run(x)
    try:
        # TVM prints a line per saved constant scope, and its process one per loaded scope ("Scope Loaded"): the
        # process inherits the log file as its stderr, for its whole life
        with native_log(log_path):
            built.executable.export_library(lib_path)
            proc = library_process(lib_path, x, built.threads)
    except Exception as e:  # no C compiler to link with, a process that does not start: time it here alone
        return error_line(e)
    err, scale = max_error(proc.output, expect)
    if err > 1e-3 * max(scale, 1e-6) + 1e-5:
        proc.close()
        raise MismatchError(f"the tuned library in a process of its own does not match: max abs error {err:.2e}")
    return Contender("tensortune", proc.repeat_ms, proc.close), err
