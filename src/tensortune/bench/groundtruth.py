"""Ground-truth tables: every config of a reduced CPU space, measured with the real measurer in several passes.

A table is produced by the one tuning loop (grid search over the space, records in SQLite, so an
interrupted measurement resumes where it stopped) and then frozen into a small gzipped JSON file
shipped with the package: the machine, the date, the timing policy, a fingerprint of the space, and
per config its index, cost (seconds, ``inf`` when it failed), error kind, build seconds and
run-step wall seconds. Its optimum is the reference for "% of the optimum" and "measurements to 95%".

Since stop 109 a table is measured in ``GT_PASSES`` passes, each over the whole space in its own random order, and a
config's cost is the median of its passes'. One pass was the protocol before: on a shared 2-vCPU host a phase of
the machine lasting a few batches moved a run of index-neighbours together, and Zen 3's L2 table, measured again
(stop 108), ranked the space with a Spearman correlation of 0.44 against its first measurement and put the old
optimum at 0.55 of the new. The table keeps each pass's cost and the passes' pairwise Spearman correlations
(``meta["pass_agreement"]``), so that a user sees how far this machine ranks its own configs alike twice.
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
GT_PASSES = 3
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
                  target: dict[str, Any] | None = None, passes: int = GT_PASSES) -> GroundTruth:
    """Measure every valid config of ``layer``'s reduced space ``passes`` times, each pass in its own random order
    (resumable through ``db_path``: pass k is run ``groundtruth-s{k}``), and write its table, whose cost per config
    is the median of the passes'. ``target``: an LLVM target this CPU can run (an ISA level and a core count: the
    kernels run on that many threads); default this CPU with all its cores. Returns the table."""
    from tensortune.storage.sqlite import SQLiteStorage
    from tensortune.strategies.grid import GridSearch
    from tensortune.tuners.loop import Budget, Tuner

    if not isinstance(passes, int) or passes < 1:
        raise ValueError(f"passes must be a whole number of at least 1, not {passes!r}")
    if target is not None:
        check_cpu_target(target)
    task = groundtruth_task(layer, target)
    sp = task.space
    n_valid = sum(sp.is_valid(sp.config(i)) for i in range(sp.size))
    started = _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
    storage = SQLiteStorage(db_path)
    runs, wall = [], 0.0
    try:
        with groundtruth_measurer(task) as m:
            for k in range(passes):
                if progress and passes > 1:
                    print(f"{task.name}: pass {k + 1}/{passes} over {n_valid} configs, in its own random order",
                          flush=True)
                tuner = Tuner(task, GridSearch(sp, seed=k, order="shuffled"), m, storage, Budget(trials=n_valid),
                              tuner_name="groundtruth", seed=k, batch_size=batch_size, progress=progress,
                              remeasure_best=False)
                wall += tuner.run().wall_seconds
                runs.append(storage.records(task.key, task.target_json, tuner.run_id, kind="trial"))
    finally:
        storage.close()
    meta = {"layer": task.name, "workload": task.workload.key, "template": task.template, "target": task.target,
            "machine": machine_description(),
            "finished": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"), "session_started": started,
            "timing": {"repeat": GT_REPEAT, "min_repeat_ms": GT_MIN_REPEAT_MS, "build_workers": GT_BUILD_WORKERS,
                       "passes": passes, "order": "each pass its own random order",
                       "cost": "median of the repeats" if passes == 1 else
                               "median over the passes of each pass's median of the repeats"},
            "flops": task.flops, "session_wall_s": round(wall, 1), "command": command}
    gt = GroundTruth.from_passes(task, runs, meta)
    if passes > 1:
        gt.meta["pass_agreement"] = [round(r, 3) for r in gt.pass_agreement()]
    gt.save(table_path(layer, out_dir))
    return gt
