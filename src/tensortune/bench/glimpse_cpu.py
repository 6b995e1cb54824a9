"""Glimpse on a held-out CPU target: trained on the other targets of the family, evaluated on this one.

The CPU family (``hardware.specs.cpu_specs``) is an ISA level x a core count; the targets this CPU can run
have ground-truth tables measured here (``tensortune glimpse-train --family cpu --tables DIR --measure``:
every config of a layer's reduced space), so every figure is a replay of real measurements and the
optimum of each held-out (target, layer) is known. Per seed and per held-out target, Glimpse (prior,
vote, acquisition function) is trained on the other targets' tables only; then on each of the held-out
target's layers:

- **initial samples** (the paper's Figure 4): the first ``n`` configs of the prior (with and without the
  vote), of random sampling (AutoTVM's and Chameleon's first plans), and of transfer learning (the best
  ``n`` configs of the same layer on the nearest training target by Blueprint distance); quality =
  optimum cost / cost, the mean over the ``n`` and the best of them;
- **tuning** (replayed from the held-out target's tables): measurements and wall time (replayed
  measurement time + the tuner's own) to reach 95% of the optimum, search steps, invalid share, for
  autotvm, autotvm with Glimpse's prior and vote, chameleon and the ``glimpse`` recipe.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tensortune.bench.glimpse_vta import measurements_to_95, recipe_options, transfer_rows
from tensortune.cost_models.validity_vote import magnitudes
from tensortune.hardware.blueprint import Blueprint
from tensortune.transfer.glimpse import cpu_family, table_pair, train_cpu

RECIPES = ("autotvm", "autotvm+glimpse", "chameleon", "glimpse")


def run(tables: dict[str, list[Any]], seeds: list[int], *, n: int = 100, trials: int = 96,
        recipes: tuple[str, ...] = RECIPES, af_iterations: int = 10, tuning: bool = True,
        progress: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    """Leave one target out over the targets in ``tables`` (at least 3), for each seed."""
    from tensortune.bench.traces import run_recipe
    from tensortune.measure.replay import ReplayMeasurer

    if len(tables) < 3:
        raise ValueError(f"leaving one CPU target out needs tables of at least 3 targets, have {sorted(tables)}")
    family = cpu_family()
    by_name = {s.name: s for s in family}
    bp = Blueprint.fit(family, 3)
    samples: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    costs: list[dict[str, Any]] = []
    for seed in seeds:
        for held in tables:
            t0 = time.perf_counter()
            models = train_cpu({k: v for k, v in tables.items() if k != held}, seed=seed, af_iterations=af_iterations)
            train_s = time.perf_counter() - t0
            costs.append({"seed": seed, "held_out": held, "train_s": train_s, "pairs": models.trained_on["pairs"]})
            others = [k for k in tables if k != held]
            emb = bp.embed([by_name[k] for k in others])
            h_emb = bp.embed([by_name[held]])[0]
            near = others[int(np.argmin(np.linalg.norm(emb - h_emb, axis=1)))]
            rng = np.random.default_rng(seed)
            for gt in tables[held]:
                pair = table_pair(by_name[held], gt, h_emb)
                src = next((table_pair(by_name[near], g, emb[others.index(near)]) for g in tables[near]
                            if g.name == gt.name), None)
                task = gt.task
                tg = models.for_task(task.space, task.workload, task.target, n)
                r = rng.choice(len(pair.idx), min(n, len(pair.idx)), replace=False)
                ctx = models.context(task.workload, task.target)
                voted = lambda rows, ctx=ctx, sp=task.space, v=models.vote: v.predict(ctx, magnitudes(sp, rows))  # noqa: E731
                sampled = {"random": pair.idx[r], "glimpse prior": models.prior.initial_indices(ctx, task.space, n),
                           "glimpse prior+vote": models.prior.initial_indices(ctx, task.space, n, keep=voted),
                           "transfer": transfer_rows(src, pair, n) if src is not None else np.zeros((0, len(task.space.knobs)))}
                row: dict[str, Any] = {"seed": seed, "design": held, "layer": gt.name, "nearest": near,
                                       "first_plan": len(tg.first_plan)}
                for name, s in sampled.items():
                    q = pair.quality(s) if len(s) else np.zeros(1)
                    row[f"{name} mean"], row[f"{name} best"] = float(q.mean()), float(q.max())
                samples.append(row)
                if not tuning:
                    continue
                opt_gflops = gt.optimum_gflops
                for recipe in recipes:
                    base, options = recipe_options(recipe, models, task, task.workload, task.target, trials)
                    with ReplayMeasurer([gt]) as m:
                        trace, _summ, strat = run_recipe(base, task, m, seed, trials, layer=gt.name, mode="replay",
                                                         options=options)
                    n95 = measurements_to_95(trace.gflops, opt_gflops)
                    runs.append({"seed": seed, "design": held, "layer": gt.name, "recipe": recipe, "to_95": n95,
                                 "wall_to_95": trace.wall[n95 - 1] if n95 else None,
                                 "to_99": measurements_to_95(trace.gflops, opt_gflops / 0.95 * 0.99),
                                 "steps": int(sum(r.steps or 0 for r in getattr(strat, "rounds", []))),
                                 "invalid": float(np.mean(np.asarray(trace.gflops) <= 0)),
                                 "best": float(max(trace.gflops) / opt_gflops)})
            progress(f"seed {seed}: held out {held} (trained on {', '.join(others)} in {train_s:.0f} s)")
    return {"samples": samples, "runs": runs, "costs": costs, "trials": trials, "n": n,
            "targets": sorted(tables), "layers": sorted({g.name for v in tables.values() for g in v}),
            "af_iterations": af_iterations, "machine": next(iter(tables.values()))[0].device}
