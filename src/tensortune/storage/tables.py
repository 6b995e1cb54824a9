"""The ground-truth table format: every config of a reduced space measured in one or more passes, frozen into a
small gzipped JSON file (the machine, the date, the timing policy, a fingerprint of the space, and per config
its index, cost in seconds or ``inf`` when it failed, error kind, build seconds and run-step wall seconds; a table
of several passes also keeps each pass's cost, and its cost is their median). Measuring a table is ``bench.groundtruth``'s job; this module reads, writes and queries one,
so that lower layers (``transfer``: Glimpse's CPU family trains on tables) can load them.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import os
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.core.values import ErrorKind, Task
from tensortune.space import Config, SearchSpace
from tensortune.templates import make_task

FORMAT = "tensortune-groundtruth/1"
# readings on each side of a reading whose median error estimates the host's phase when it was timed (stop 109: on Zen
# 3's six-pass L2 table, 3-pass tables corrected so agree with each other at Spearman 0.85 instead of 0.80; windows
# of 2-8 alike)
PHASE_WINDOW = 4
GT_BUILD_WORKERS = 2  # parallel builders of a table's measurement (its build seconds are per builder)


def space_fingerprint(space: SearchSpace) -> str:
    """Hash of knob names, options (in order) and constraint names: a table's indices mean the same
    configs only in a space with the same fingerprint."""
    desc = [[k.name, [k.to_json(i) for i in range(len(k))]] for k in space.knobs]
    desc.append(["constraints", [c.name for c in space.constraints]])
    return hashlib.sha1(json.dumps(desc, sort_keys=True).encode()).hexdigest()[:16]


@dataclass
class GroundTruth:
    """A frozen exhaustive measurement of one task's space."""

    task: Task
    meta: dict[str, Any]
    index: np.ndarray  # (n,) config indices in task.space
    cost: np.ndarray  # (n,) median seconds, inf when the measurement failed
    error: np.ndarray  # (n,) ErrorKind values
    build_s: np.ndarray  # (n,) build seconds of that config (one build worker)
    run_wall_s: np.ndarray  # (n,) wall seconds of its run step
    pass_cost: np.ndarray | None = None  # (n, passes) each pass's cost (inf: failed); None for a one-pass table
    _pos: dict[int, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._pos = {int(i): p for p, i in enumerate(self.index)}

    # ------------------------------------------------------------------ facts
    @property
    def name(self) -> str:
        return str(self.meta.get("layer", self.task.name))

    @property
    def n(self) -> int:
        return len(self.index)

    @property
    def gflops(self) -> np.ndarray:
        with np.errstate(divide="ignore"):
            return np.where(np.isfinite(self.cost), self.task.flops / self.cost / 1e9, 0.0)

    @property
    def optimum_cost(self) -> float:
        return float(np.min(self.cost))

    @property
    def optimum_gflops(self) -> float:
        return self.task.flops / self.optimum_cost / 1e9

    @property
    def optimum_config(self) -> Config:
        return self.task.space.config(int(self.index[int(np.argmin(self.cost))]))

    @property
    def device(self) -> str:
        """The machine it was measured on, as records name theirs ("AMD EPYC (znver5)")."""
        m = self.meta.get("machine", {})
        if "gpu" in m:  # a CUDA table (``bench.groundtruth_cuda``)
            return f"{m['gpu']} (driver {m.get('smi', {}).get('driver_version', '?')})"
        return f"{m.get('cpu', '?')} ({m.get('llvm_cpu', 'LLVM CPU not recorded')})"

    @property
    def is_gpu(self) -> bool:
        """Measured on a GPU: nothing of it can be measured again live on this machine."""
        return self.task.target.get("kind") == "cuda"

    def live_task(self) -> Task:
        """The table's task compiled for this machine, for what a benchmark measures live beside the
        replay (the table's optimum now, MetaSchedule): a table made on an AVX-512 CPU names that CPU in
        its target, and its code would not run (illegal instruction) on a CPU without AVX-512."""
        from tensortune.core.targets import default_cpu_target

        here = default_cpu_target(int(self.task.target.get("num-cores", 1)))
        t = self.task.target
        if t.get("kind") != "llvm" or (t.get("mcpu"), t.get("mattr")) == (here["mcpu"], here.get("mattr")):
            return self.task
        target = {k: v for k, v in t.items() if k != "mattr"} | {k: here[k] for k in ("mcpu", "mattr") if k in here}
        return make_task(self.task.workload, self.task.template, target, self.task.name)

    def foreign(self) -> str | None:
        """A loud warning when the table was measured on another CPU than this one (None: same CPU)."""
        from tensortune.core.targets import device_name

        if self.is_gpu:
            return None  # replayed as what it is: a GPU's figures, never put beside this CPU's live ones
        here = device_name()
        if self.device == here:
            return None
        return (f"WARNING: table {self.name} was measured on {self.device}, this machine is {here}: its replayed "
                f"costs and optimum are that machine's, so a benchmark that puts them beside live figures compares "
                f"two machines. Regenerate it here with: tensortune groundtruth --layers {self.name} --out DIR "
                f"(then --tables DIR)")

    def measure_charge(self, build_workers: int = GT_BUILD_WORKERS) -> np.ndarray:
        """Seconds one measurement of each config cost on the table's machine: its build (shared by
        ``build_workers`` parallel builders) plus its run step."""
        return self.build_s / build_workers + self.run_wall_s

    @property
    def passes(self) -> int:
        return 1 if self.pass_cost is None else int(self.pass_cost.shape[1])

    def pass_agreement(self) -> list[float]:
        """Spearman rank correlation of every pair of passes over the configs that ran in both (empty for a
        one-pass table): how far one pass's ranking of the space can be trusted on this machine."""
        if self.pass_cost is None:
            return []
        out = []
        for a in range(self.passes):
            for b in range(a + 1, self.passes):
                x, y = self.pass_cost[:, a], self.pass_cost[:, b]
                ok = np.isfinite(x) & np.isfinite(y)
                out.append(spearman(x[ok], y[ok]))
        return out

    def position(self, config_index: int) -> int | None:
        return self._pos.get(int(config_index))

    def configs_within(self, fraction: float = 0.95) -> int:
        """How many configs reach ``fraction`` of the optimum's GFLOP/s (a difficulty measure)."""
        return int(np.sum(self.gflops >= fraction * self.optimum_gflops))

    # ------------------------------------------------------------------ files
    def save(self, path: str | os.PathLike[str]) -> None:
        doc = {"format": FORMAT, "meta": self.meta,
               "columns": {"index": [int(i) for i in self.index],
                           "cost": [None if not np.isfinite(c) else float(f"{c:.6e}") for c in self.cost],
                           "error": [int(e) for e in self.error],
                           "build_s": [round(float(b), 4) for b in self.build_s],
                           "run_wall_s": [round(float(r), 4) for r in self.run_wall_s]}}
        if self.pass_cost is not None:
            doc["columns"]["pass_cost"] = [[None if not np.isfinite(c) else float(f"{c:.6e}") for c in row]
                                           for row in self.pass_cost]
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(path.suffix + ".tmp")
        with gzip.open(tmp, "wt", compresslevel=9) as f:
            json.dump(doc, f, separators=(",", ":"))
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str | os.PathLike[str]) -> GroundTruth:
        """Read a table; ValueError if it is malformed or its space no longer matches the template."""
        from tensortune.workloads import workload_from_key

        try:
            with gzip.open(path, "rt") as f:
                doc = json.load(f)
        except (OSError, json.JSONDecodeError, EOFError) as e:
            raise ValueError(f"{path}: not a ground-truth table ({e})") from None
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError(f"{path}: not a {FORMAT} file")
        meta = doc["meta"]
        task = make_task(workload_from_key(meta["workload"]), meta["template"], meta["target"], meta.get("layer", ""))
        fp = space_fingerprint(task.space)
        if fp != meta["space_fingerprint"]:
            raise ValueError(f"{path}: made for a different space of {meta['template']} "
                             f"(fingerprint {meta['space_fingerprint']}, now {fp}); measure it again")
        c = doc["columns"]
        cost = np.array([np.inf if v is None else v for v in c["cost"]], dtype=np.float64)
        passes = None
        if "pass_cost" in c:
            passes = np.array([[np.inf if v is None else v for v in row] for row in c["pass_cost"]], dtype=np.float64)
        return cls(task, meta, np.array(c["index"], dtype=np.int64), cost, np.array(c["error"], dtype=np.int16),
                   np.array(c["build_s"], dtype=np.float64), np.array(c["run_wall_s"], dtype=np.float64), passes)

    @classmethod
    def from_passes(cls, task: Task, passes: list[list[Any]], meta: dict[str, Any],
                    phase_window: int = PHASE_WINDOW) -> GroundTruth:
        """Freeze several exhaustive runs of one space (each one record per valid config) into one table: a config's
        cost is the median of its passes' readings after each reading's phase is divided out (three passes or more,
        ``phase_correct``), ``inf`` where half or more of them failed (with the first failure's error kind); its
        build and run-step seconds are the medians of its passes'. ``pass_cost`` keeps the raw readings. One pass:
        ``from_records``."""
        if not passes:
            raise ValueError("no passes to freeze")
        tables = [cls.from_records(task, recs, meta) for recs in passes]
        if len(tables) == 1:
            return tables[0]
        first = tables[0]
        raw = np.stack([t.cost for t in tables], axis=1)
        # each pass's readings in the order they were timed, as rows of the table
        order = [np.array([first.position(r.config_index) for r in sorted(
            (r for r in recs if r.kind == "trial"), key=lambda r: r.timestamp)]) for recs in passes]
        window = phase_window if len(tables) >= 3 else 0
        costs = phase_correct(raw, order, window) if window else raw
        cost = np.median(costs, axis=1)  # inf where half or more of the passes failed
        errs = np.stack([t.error for t in tables], axis=1)
        failed = errs != ErrorKind.NONE
        first_failure = errs[np.arange(len(errs)), failed.argmax(axis=1)]
        error = np.where(np.isfinite(cost), ErrorKind.NONE,
                         np.where(failed.any(axis=1), first_failure, ErrorKind.UNKNOWN))
        meta = {**first.meta, "passes": len(tables), "phase_window": window,
                "failed": int(np.sum(~np.isfinite(cost)))}
        return cls(task, meta, first.index, cost, error.astype(np.int16),
                   np.median(np.stack([t.build_s for t in tables], axis=1), axis=1),
                   np.median(np.stack([t.run_wall_s for t in tables], axis=1), axis=1), raw)

    @classmethod
    def from_records(cls, task: Task, records: list[Any], meta: dict[str, Any]) -> GroundTruth:
        """Freeze the trial records of an exhaustive run (one per valid config of the space)."""
        sp = task.space
        recs = sorted((r for r in records if r.kind == "trial"), key=lambda r: r.config_index)
        idx = np.array([r.config_index for r in recs], dtype=np.int64)
        if len(set(idx.tolist())) != len(idx):
            raise ValueError("records measure a config twice")
        valid = [i for i in range(sp.size) if sp.is_valid(sp.config(i))]
        if idx.tolist() != valid:
            raise ValueError(f"records cover {len(idx)} configs; the space has {len(valid)} valid ones")
        meta = {**meta, "space_fingerprint": space_fingerprint(sp), "n_configs": len(idx), "space_size": sp.size,
                "failed": int(sum(not r.ok for r in recs))}
        return cls(task, meta, idx, np.array([r.cost for r in recs]), np.array([int(r.error) for r in recs]),
                   np.array([r.build_seconds for r in recs]),
                   np.array([float(r.extra.get("run_wall_s", r.run_seconds)) for r in recs]))


def phase_correct(cost: np.ndarray, order: list[np.ndarray], window: int = PHASE_WINDOW,
                  rounds: int = 10) -> np.ndarray:
    """Readings (configs x passes, seconds; inf: failed) with the host's phase divided out of each.

    A reading's error is its log over its config's median over the passes. On a shared host part of that error
    belongs to the moment, not the config: the readings timed just before and after share it (Zen 3, stop 109: lag-1
    autocorrelation 0.3-0.5, a quarter to a third of the variance in batch means). Each pass runs in its own random
    order, so a reading's time neighbours are unrelated configs, and their median error (``window`` on each side in
    its pass, itself left out; a median, so that one lucky reading does not move its neighbours) estimates its phase. That is divided out and the medians are taken again,
    ``rounds`` times. The phases are counted from the median one, so the table keeps the level of the host's typical
    moment. ``order[j]``: pass j's rows in the order they were timed."""
    log = np.log(cost)
    fixed = log.copy()
    for _ in range(rounds):
        with warnings.catch_warnings():  # a config that failed in every pass has no median: nan, and no say
            warnings.simplefilter("ignore", RuntimeWarning)
            med = np.nanmedian(np.where(np.isfinite(fixed), fixed, np.nan), axis=1)
        fixed, phases = log.copy(), [np.zeros(0)] * len(order)
        for j, rows in enumerate(order):
            err = log[rows, j] - med[rows]  # nan where the reading or every reading of its config failed
            padded = np.concatenate([np.full(window, np.nan), np.where(np.isfinite(err), err, np.nan),
                                     np.full(window, np.nan)])
            near = np.lib.stride_tricks.sliding_window_view(padded, 2 * window + 1).copy()
            near[:, window] = np.nan  # the reading itself has no say in its phase
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                ph = np.nanmedian(near, axis=1)
            phases[j] = np.where(np.isfinite(ph), ph, 0.0)
        # the level is the typical moment's: without this anchor each round would move every reading alike
        typical = np.median(np.concatenate(phases))
        for j, rows in enumerate(order):
            fixed[rows, j] = log[rows, j] - (phases[j] - typical)
    return np.exp(fixed)


def spearman(x: np.ndarray, y: np.ndarray) -> float:
    """Spearman rank correlation of two equal-length samples (average ranks for ties); nan below 3 values."""
    if len(x) < 3:
        return float("nan")

    def ranks(v: np.ndarray) -> np.ndarray:
        order = np.argsort(v, kind="mergesort")
        r = np.empty(len(v))
        r[order] = np.arange(len(v), dtype=np.float64)
        _, inv, counts = np.unique(v, return_inverse=True, return_counts=True)
        sums = np.bincount(inv, weights=r)
        return sums[inv] / counts[inv]

    rx, ry = ranks(np.asarray(x, dtype=np.float64)), ranks(np.asarray(y, dtype=np.float64))
    return float(np.corrcoef(rx, ry)[0, 1])


def table_path(layer: str, directory: str | os.PathLike[str]) -> Path:
    return Path(directory) / f"{layer.upper()}.json.gz"
