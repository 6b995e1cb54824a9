"""Ground-truth tables: every config of a reduced CPU space, measured once with the real measurer.

A table is produced by the one tuning loop (grid search over the space, records in SQLite, so an
interrupted measurement resumes where it stopped) and then frozen into a small gzipped JSON file
shipped with the package: the machine, the date, the timing policy, a fingerprint of the space, and
per config its index, median cost (seconds, ``inf`` when it failed), error kind, build seconds and
run-step wall seconds. Its optimum is the reference for "% of the optimum" and "measurements to 95%".
"""

from __future__ import annotations

import datetime as _dt
import os
import platform
from pathlib import Path
from typing import Any

from tensortune.core.values import Task
from tensortune.storage.tables import GT_BUILD_WORKERS, GroundTruth
from tensortune.storage.tables import table_path as _table_path
from tensortune.templates import make_task

GT_TEMPLATE = "conv2d_nchw.llvm-small"
GT_LAYERS = ("L1", "L2", "L7", "L8")
GT_REPEAT, GT_MIN_REPEAT_MS = 3, 20
TABLE_DIR = Path(__file__).resolve().parent / "tables"


def machine_description() -> dict[str, Any]:
    from tensortune.core.targets import cpu_model, llvm_cpu_label

    cpu = cpu_model() or platform.processor() or ""
    try:
        import tvm

        tvm_version = tvm.__version__
    except Exception:  # pragma: no cover - tvm is a dependency
        tvm_version = "?"
    mem_gb = None
    try:
        import psutil

        mem_gb = round(psutil.virtual_memory().total / 2**30, 1)
    except Exception:
        pass
    return {"cpu": cpu, "llvm_cpu": llvm_cpu_label(), "cores": os.cpu_count(), "memory_gib": mem_gb,
            "os": platform.platform(), "python": platform.python_version(), "tvm": tvm_version}


def table_path(layer: str, directory: str | os.PathLike[str] | None = None) -> Path:
    """A layer's table file in ``directory`` (default: the tables shipped with the package)."""
    return _table_path(layer, directory or TABLE_DIR)


def available_tables(directory: str | os.PathLike[str] | None = None) -> list[str]:
    d = Path(directory or TABLE_DIR)
    return sorted(p.name.split(".")[0] for p in d.glob("*.json.gz"))


def load_table(layer: str, directory: str | os.PathLike[str] | None = None) -> GroundTruth:
    p = table_path(layer, directory)
    if not p.exists():
        have = ", ".join(available_tables(directory)) or "none"
        raise ValueError(f"no ground-truth table for {layer!r} in {p.parent} (have: {have}); "
                         f"make one with `tensortune groundtruth --layers {layer}`")
    return GroundTruth.load(p)


def groundtruth_task(layer: str, target: dict[str, Any] | None = None) -> Task:
    from tensortune.core.targets import default_cpu_target
    from tensortune.workloads import resolve_layer

    name, wl = resolve_layer(layer)
    return make_task(wl, GT_TEMPLATE, target or default_cpu_target(), name=name)


def groundtruth_measurer(task: Task) -> Any:
    """The tables' measurement protocol for ``task`` (its target's cores, GT_REPEAT runs of at least
    GT_MIN_REPEAT_MS, GT_BUILD_WORKERS builders); a context manager."""
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer

    return TvmMeasurer(build_workers=GT_BUILD_WORKERS, run_threads=int(task.target.get("num-cores", 1)),
                       timing=TimingPolicy(repeat=GT_REPEAT, min_repeat_ms=GT_MIN_REPEAT_MS))


def check_cpu_target(target: dict[str, Any]) -> None:
    """ValueError unless ``target`` is an LLVM CPU target whose code this CPU can run with its core count."""
    from tensortune.core.targets import target_missing_features
    from tensortune.hardware.specs import runnable_targets

    if target.get("kind") != "llvm":
        raise ValueError(f"ground-truth tables are measured on this CPU: the target must be an llvm target, not {target}")
    mcpu, cores = target.get("mcpu"), int(target.get("num-cores", os.cpu_count() or 1))
    missing = target_missing_features(target)
    if missing:
        raise ValueError(f"this CPU cannot run {mcpu} code (it lacks {', '.join(missing)}); "
                         f"runnable here: {', '.join(runnable_targets())}, or the default target (llvm)")
    if not 1 <= cores <= (os.cpu_count() or 1):
        raise ValueError(f"num-cores {cores}: this machine has {os.cpu_count()} cores")


def measure_table(layer: str, db_path: str | os.PathLike[str], out_dir: str | os.PathLike[str] | None = None,
                  batch_size: int = 32, progress: bool = True, command: str = "",
                  target: dict[str, Any] | None = None) -> GroundTruth:
    """Measure every valid config of ``layer``'s reduced space (resumable through ``db_path``) and
    write its table. ``target``: an LLVM target this CPU can run (an ISA level and a core count: the
    kernels run on that many threads); default this CPU with all its cores. Returns the table."""
    from tensortune.storage.sqlite import SQLiteStorage
    from tensortune.tuners.loop import Budget, Tuner
    from tensortune.tuners.recipes import create

    if target is not None:
        check_cpu_target(target)
    task = groundtruth_task(layer, target)
    sp = task.space
    n_valid = sum(sp.is_valid(sp.config(i)) for i in range(sp.size))
    started = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    storage = SQLiteStorage(db_path)
    try:
        with groundtruth_measurer(task) as m:
            tuner = Tuner(task, create("grid", sp), m, storage, Budget(trials=n_valid), tuner_name="groundtruth",
                          batch_size=batch_size, progress=progress, remeasure_best=False)
            summary = tuner.run()
            records = storage.records(task.key, task.target_json, tuner.run_id, kind="trial")
    finally:
        storage.close()
    meta = {"layer": task.name, "workload": task.workload.key, "template": task.template, "target": task.target,
            "machine": machine_description(),
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), "session_started": started,
            "timing": {"repeat": GT_REPEAT, "min_repeat_ms": GT_MIN_REPEAT_MS, "build_workers": GT_BUILD_WORKERS,
                       "cost": "median of the repeats"},
            "flops": task.flops, "session_wall_s": round(summary.wall_seconds, 1), "command": command}
    gt = GroundTruth.from_records(task, records, meta)
    gt.save(table_path(layer, out_dir))
    return gt
