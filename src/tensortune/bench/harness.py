"""``tensortune bench``: our recipes, MetaSchedule and PyTorch on the ground-truth layers, interleaved.

Per seed and layer, in this order: the table's optimum config is measured again live (how far the
machine has drifted since the table was made), PyTorch's oneDNN convolution, MetaSchedule's search
(live), then each of our recipes on replay of the table. Every finished unit is appended to
``results.json`` at once, and a rerun with the same settings skips the units already there, so an
interrupted benchmark loses at most the unit in flight.
"""

from __future__ import annotations

import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from tensortune.bench.groundtruth import (
    GT_BUILD_WORKERS,
    GT_MIN_REPEAT_MS,
    GT_REPEAT,
    GroundTruth,
    load_table,
)
from tensortune.bench.results import ResultsFile
from tensortune.bench.traces import RunTrace, run_recipe
from tensortune.measure.replay import ReplayMeasurer

PEERS = ("metaschedule", "pytorch")


@dataclass
class BenchConfig:
    layers: list[str]
    budgets: list[int]
    seeds: list[int]
    recipes: list[str]
    peers: list[str] = field(default_factory=lambda: list(PEERS))
    ms_trials: int | None = None  # MetaSchedule's budget (default: the largest budget)
    ms_seeds: list[int] | None = None  # seeds MetaSchedule runs with (default: all; it measures live, slowly)
    ms_layers: list[str] | None = None  # layers MetaSchedule runs on (default: all)
    ms_per_iter: int = 32  # MetaSchedule's measurements per search iteration
    batch_size: int = 16
    table_dir: str | None = None

    def __post_init__(self) -> None:
        from tensortune.tuners.recipes import recipe, recipe_names

        if not self.layers or not self.budgets or not self.seeds:
            raise ValueError("bench needs at least one layer, budget and seed")
        if any(b < 1 for b in self.budgets):
            raise ValueError(f"budgets must be positive: {self.budgets}")
        bad = [r for r in self.recipes if r not in recipe_names()]
        if bad:
            raise ValueError(f"unknown recipes {bad}; known: {', '.join(recipe_names())}")
        bad = [r for r in self.recipes if recipe(r).needs_glimpse]
        if bad:
            raise ValueError(f"{', '.join(bad)}: trained for VTA designs only; the ground-truth tables are CPU "
                             "layers (`tensortune bench glimpse --tuning` evaluates it on held-out designs)")
        bad = [p for p in self.peers if p not in PEERS]
        if bad:
            raise ValueError(f"unknown peers {bad}; known: {', '.join(PEERS)}")
        self.budgets = sorted(set(self.budgets))

    @property
    def max_budget(self) -> int:
        return max(self.budgets)


def run_recipe_on_replay(recipe: str, gt: GroundTruth, seed: int, budget: int, *, batch_size: int = 16,
                         storage: Any = None, measurer: ReplayMeasurer | None = None,
                         options: dict[str, Any] | None = None) -> RunTrace:
    """One run of ``recipe`` answered by ``gt``; the wall axis is the tuner's real time plus what each
    replayed measurement cost when the table was made."""
    m = measurer or ReplayMeasurer([gt], build_workers=GT_BUILD_WORKERS)
    trace, _, _ = run_recipe(recipe, gt.task, m, seed, min(budget, gt.n), storage=storage, layer=gt.name,
                             mode="replay", batch_size=batch_size, options=options)
    if not trace.note and trace.trials < budget:
        trace.note = f"stopped after {trace.trials}: the table has {gt.n} configs"
    return trace


def measure_live(gt: GroundTruth) -> float:
    """GFLOP/s of the table's optimum config measured now with the table's timing protocol (compiled for
    this CPU: on another machine than the table's, this is that config here)."""
    from tensortune.core.values import MeasureInput
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer

    with TvmMeasurer(build_workers=1, timing=TimingPolicy(repeat=GT_REPEAT, min_repeat_ms=GT_MIN_REPEAT_MS)) as m:
        r = m.measure([MeasureInput(gt.live_task(), gt.optimum_config)])[0]
    return gt.task.flops / r.cost / 1e9 if r.ok else 0.0


class BenchResults(ResultsFile):
    """The ground-truth suite's ``results.json``: traces plus table facts, PyTorch and drift figures."""

    def __init__(self, path: Path, cfg: BenchConfig, command: str) -> None:
        super().__init__(path, asdict(cfg), command, sections=("pytorch", "drift"))
        self.doc.setdefault("tables", {})

    def done(self, kind: str, tuner: str, layer: str, seed: int) -> bool:
        if kind == "trace":
            return self.has_trace(tuner, layer, seed)
        return self.find(kind, layer=layer, seed=seed) is not None


def run_bench(cfg: BenchConfig, out: Path, command: str = "", progress: bool = True) -> BenchResults:
    from rich.console import Console

    from tensortune.bench.peers import run_metaschedule
    from tensortune.measure.torch_baseline import torch_gflops

    console = Console(stderr=True, quiet=not progress)
    out.mkdir(parents=True, exist_ok=True)
    tables = {layer: load_table(layer, cfg.table_dir) for layer in cfg.layers}
    res = BenchResults(out / "results.json", cfg, command)
    for layer, gt in tables.items():
        res.doc["tables"][layer] = {"optimum_gflops": gt.optimum_gflops, "configs": gt.n, "meta": gt.meta,
                                    "optimum_config": gt.task.space.to_json(gt.optimum_config),
                                    "within_95": gt.configs_within(0.95)}
    res.save()
    ms_trials = cfg.ms_trials or cfg.max_budget
    units = [(s, layer) for s in cfg.seeds for layer in cfg.layers]
    for k, (seed, layer) in enumerate(units, 1):
        gt = tables[layer]
        head = f"[{k}/{len(units)}] {layer} seed {seed}"
        if gt.is_gpu:
            # a GPU table: nothing runs live here; the library reference is cuDNN's time, measured in the
            # table's own GPU session
            from tensortune.bench.groundtruth_cuda import cudnn_gflops

            if "pytorch" in cfg.peers and not res.done("pytorch", "", layer, seed) and cudnn_gflops(gt):
                res.add("pytorch", {"layer": layer, "seed": seed, "gflops": cudnn_gflops(gt),
                                    "source": "cuDNN fp32, from the table's GPU session"})
        elif not res.done("drift", "", layer, seed):
            console.log(f"{head}: table optimum, live")
            res.add("drift", {"layer": layer, "seed": seed, "gflops": measure_live(gt)})
        if "pytorch" in cfg.peers and not gt.is_gpu and not res.done("pytorch", "", layer, seed):
            console.log(f"{head}: PyTorch oneDNN")
            g, _ = torch_gflops(gt.task.workload, threads=os.cpu_count() or 1, repeat=GT_REPEAT,
                                min_repeat_ms=GT_MIN_REPEAT_MS)
            res.add("pytorch", {"layer": layer, "seed": seed, "gflops": g})
        ms_here = (cfg.ms_seeds is None or seed in cfg.ms_seeds) and (cfg.ms_layers is None or layer in cfg.ms_layers)
        if gt.is_gpu and "metaschedule" in cfg.peers and ms_here:
            console.log(f"{head}: MetaSchedule skipped (it measures live, and this table's GPU is not here)")
        elif "metaschedule" in cfg.peers and ms_here and not res.done("trace", "metaschedule", layer, seed):
            console.log(f"{head}: MetaSchedule, {ms_trials} trials (live)")
            t = run_metaschedule(gt.live_task(), layer, seed, ms_trials, trials_per_iter=cfg.ms_per_iter)
            res.add_trace(t)
            console.log(f"{head}: MetaSchedule best {t.best():.1f} GFLOP/s, {t.wall[-1] if t.wall else 0:.0f} s")
        for recipe in cfg.recipes:
            if res.done("trace", recipe, layer, seed):
                continue
            t0 = time.perf_counter()
            t = run_recipe_on_replay(recipe, gt, seed, cfg.max_budget, batch_size=cfg.batch_size)
            res.add_trace(t)
            console.log(f"{head}: {recipe} best {t.best():.1f} GFLOP/s ({100 * t.best() / gt.optimum_gflops:.1f}%), "
                        f"{time.perf_counter() - t0:.0f} s")
    res.finish()
    return res
