"""Glimpse on held-out VTA designs: initial samples and validity voting, trained on other designs.

For every (design, layer) pair the whole software space of ``conv2d_nchw.vta-sim`` is evaluated with
the analytical model (cycles and validity of each config), so the optimum is known exactly. Per seed,
designs are drawn from the co-design grid (``DEFAULT_HW_OPTIONS``); ``train`` of them train the prior
generator and the validity ensemble on every ResNet-18 conv layer; the others are held out and never seen
in training. On each held-out (design, layer):

- **initial samples** (the paper's Figure 4): the first 100 configs of the prior (highest product of
  knob probabilities), of random sampling (what AutoTVM's and Chameleon's first plans are), and of
  transfer learning (the best 100 configs of the same layer on the nearest training design by Blueprint
  distance, each knob mapped to the option of nearest magnitude); quality = optimum cycles / cycles (0
  for an invalid config), the mean over the 100 and the best of them;
- **validity voting**: of random configs, the share that is invalid, the share of those the ensemble
  lets through that is invalid, and the share of valid configs it keeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from tensortune.cost_models.validity_vote import ThresholdVote, magnitudes, option_magnitudes
from tensortune.hardware.blueprint import Blueprint
from tensortune.hardware.specs import vta_specs
from tensortune.samplers.glimpse_prior import PriorGenerator
from tensortune.transfer.glimpse import Pair, make_pair, top_configs


def transfer_rows(src: Pair, dst: Pair, n: int) -> np.ndarray:
    """``src``'s best configs mapped onto ``dst``'s space (nearest magnitude per knob), valid ones first."""
    sm, rows = magnitudes(src.space, top_configs(src, n)), []
    tables = [option_magnitudes(k) for k in dst.space.knobs]
    for m in sm:
        rows.append([int(np.argmin(np.abs(t - v))) for t, v in zip(tables, m, strict=True)])
    rows = np.array(rows, dtype=np.int64).reshape(-1, len(dst.space.knobs))
    if not len(rows):
        return rows
    ok = dst.space.valid_mask(rows)
    out = list(dict.fromkeys(map(tuple, rows[ok])))  # valid mapped configs, duplicates removed
    return np.array(out[:n], dtype=np.int64).reshape(-1, len(dst.space.knobs))


def run(seeds: list[int], designs: int = 30, train: int = 24, n: int = 100, bp_dim: int = 6,
        progress: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.workloads.layer_tables import model_tasks

    family = vta_specs(DEFAULT_HW_OPTIONS)
    bp = Blueprint.fit(family, bp_dim)
    layers = model_tasks("resnet18")
    rows: list[dict[str, Any]] = []
    costs: dict[str, float] = {}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        chosen = [family[i] for i in rng.choice(len(family), designs, replace=False)]
        emb = bp.embed(chosen)
        t0 = time.perf_counter()
        pairs = [[make_pair(s, name, conv, emb[i]) for name, conv in layers] for i, s in enumerate(chosen)]
        t_eval = time.perf_counter() - t0
        tr = [p for ps in pairs[:train] for p in ps if p.valid.any()]
        knobs = [k.name for k in tr[0].space.knobs]
        t0 = time.perf_counter()
        prior = PriorGenerator.fit(knobs, [p.context for p in tr], [magnitudes(p.space, top_configs(p, 10)) for p in tr],
                                   seed=seed, trained_on={"designs": [s.name for s in chosen[:train]], "layers": "resnet18"})
        sub = [rng.choice(len(p.idx), min(len(p.idx), 2000), replace=False) for p in tr]
        vote = ThresholdVote.fit(knobs, [p.context for p in tr], [magnitudes(p.space, p.idx[s]) for p, s in zip(tr, sub, strict=True)],
                                 [p.valid[s] for p, s in zip(tr, sub, strict=True)])
        t_train = time.perf_counter() - t0
        costs = {"evaluate_s": t_eval, "train_s": t_train, "train_pairs": len(tr),
                 "train_configs": int(sum(len(s) for s in sub))}
        for d in range(train, designs):
            dist = np.linalg.norm(emb[:train] - emb[d], axis=1)
            near = int(np.argmin(dist))
            for li, p in enumerate(pairs[d]):
                if not p.valid.any():
                    continue
                r = rng.choice(len(p.idx), min(n, len(p.idx)), replace=False)
                voted = lambda rows, p=p, vote=vote: vote.predict(p.context, magnitudes(p.space, rows))  # noqa: E731
                sampled = {"random": p.idx[r], "glimpse prior": prior.initial_indices(p.context, p.space, n),
                           "glimpse prior+vote": prior.initial_indices(p.context, p.space, n, keep=voted),
                           "transfer": transfer_rows(pairs[near][li], p, n)}
                row = {"seed": seed, "design": p.design.name, "layer": p.layer, "valid_share": float(p.valid.mean())}
                for name, s in sampled.items():
                    q = p.quality(s) if len(s) else np.zeros(1)
                    row[f"{name} mean"], row[f"{name} best"] = float(q.mean()), float(q.max())
                many = rng.choice(len(p.idx), min(len(p.idx), 1000), replace=False)
                keep = vote.predict(p.context, magnitudes(p.space, p.idx[many]))
                v = p.valid[many]
                row["invalid random"] = float(1 - v.mean())
                row["invalid after vote"] = float(1 - v[keep].mean()) if keep.any() else float("nan")
                row["valid kept"] = float(keep[v].mean()) if v.any() else float("nan")
                rows.append(row)
        progress(f"seed {seed}: {len(rows)} held-out pairs so far")
    return {"rows": rows, "costs": costs, "designs": designs, "train": train, "n": n, "blueprint_dim": bp_dim,
            "blueprint_loss": bp.reconstruction_rmse(family)}


def summary(res: dict[str, Any]) -> list[tuple[str, float]]:
    """Medians over held-out pairs within a seed, then the median over seeds."""
    rows = res["rows"]
    keys = [k for k in rows[0] if k not in ("seed", "design", "layer")]
    seeds = sorted({r["seed"] for r in rows})
    out = []
    for k in keys:
        per = [float(np.nanmedian([r[k] for r in rows if r["seed"] == s])) for s in seeds]
        out.append((k, float(np.median(per))))
    return out


def recipe_options(recipe: str, models: Any, task: Any, workload: Any, target: dict[str, Any],
                   trials: int) -> tuple[str, dict[str, Any]]:
    """A benchmark recipe name as (recipe, options): ``autotvm/8`` another plan size (default 32),
    ``autotvm+glimpse`` with Glimpse's first plan and vote, ``glimpse`` the whole recipe (plan 8, the budget
    in the network's state), ``glimpse/mean`` the same with the plan by the ensemble's mean."""
    rspec, _, extra = recipe.partition("+")
    base, _, variant = rspec.partition("/")
    options: dict[str, Any] = {"plan_size": int(variant) if variant.isdigit() else 32}
    if extra == "glimpse":
        options["glimpse"] = models.for_task(task.space, workload, target, 32)
    if base == "glimpse":
        options = {"plan_size": 8, "budget": trials, "glimpse": models.for_task(task.space, workload, target, 8),
                   "acquisition": "mean" if variant == "mean" else "network"}
    return base, options


def measurements_to_95(curve: list[float], target: float) -> int | None:
    best = np.maximum.accumulate(np.asarray(curve, dtype=np.float64)) if curve else np.zeros(0)
    hit = np.flatnonzero(best >= 0.95 * target)
    return int(hit[0]) + 1 if len(hit) else None


def tuning(seeds: list[int], designs: int = 30, train: int = 24, layers: int = 3, trials: int = 128,
           recipes: tuple[str, ...] = ("autotvm", "autotvm+glimpse", "chameleon", "glimpse"),
           af_iterations: int = 30,
           progress: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    """Tuning runs on held-out designs (the issue's point 6, second part): per seed the same split as
    :func:`run`; Glimpse trained on the training designs only; on ``layers`` random layers (with a valid
    config) of each held-out design, each recipe tunes ``trials`` measurements of the analytical model.
    Per run: measurements to reach 95% of the exhaustive optimum (None: not reached), the tuner's wall time
    to get there, its search steps, and the share of invalid measurements."""
    from tensortune.bench.traces import run_recipe
    from tensortune.core.values import MeasureInput
    from tensortune.measure.vta_measurer import VtaSimMeasurer
    from tensortune.space import Config
    from tensortune.templates import make_task
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.transfer.glimpse import train_vta
    from tensortune.workloads.layer_tables import model_tasks

    family = vta_specs(DEFAULT_HW_OPTIONS)
    bp = Blueprint.fit(family, 6)
    convs = model_tasks("resnet18")
    measurer = VtaSimMeasurer()
    runs: list[dict[str, Any]] = []
    for seed in seeds:
        rng = np.random.default_rng(seed)
        chosen = [family[i] for i in rng.choice(len(family), designs, replace=False)]
        t0 = time.perf_counter()
        models = train_vta(chosen=chosen[:train], seed=seed, af_iterations=af_iterations)
        train_s = time.perf_counter() - t0
        emb = bp.embed(chosen[train:])
        for d, spec in enumerate(chosen[train:]):
            pairs = [(name, conv, make_pair(spec, name, conv, emb[d])) for name, conv in convs]
            pairs = [x for x in pairs if x[2].valid.any()]
            for li in rng.permutation(len(pairs))[:layers]:
                name, conv, pair = pairs[li]
                target = dict(spec.target)
                task = make_task(conv, "conv2d_nchw.vta-sim", target, name)
                best = pair.idx[int(np.argmin(pair.cycles))]
                opt = measurer.measure([MeasureInput(task, Config(tuple(int(i) for i in best)))])[0]
                opt_gflops = task.flops / opt.cost / 1e9
                for recipe in recipes:
                    base, options = recipe_options(recipe, models, task, conv, target, trials)
                    trace, summ, strat = run_recipe(base, task, measurer, seed, trials, layer=name, options=options)
                    n95 = measurements_to_95(trace.gflops, opt_gflops)
                    n99 = measurements_to_95(trace.gflops, opt_gflops / 0.95 * 0.99)
                    runs.append({"seed": seed, "design": spec.name, "layer": name, "recipe": recipe,
                                 "to_95": n95, "wall_to_95": trace.wall[n95 - 1] if n95 else None, "to_99": n99,
                                 "steps": int(sum(r.steps or 0 for r in getattr(strat, "rounds", []))),
                                 "invalid": float(np.mean(np.asarray(trace.gflops) <= 0)),
                                 "best": float(max(trace.gflops) / opt_gflops)})
            progress(f"seed {seed}: design {spec.name} done ({len(runs)} runs)")
        progress(f"seed {seed}: Glimpse trained in {train_s:.1f} s")
    return {"runs": runs, "trials": trials, "layers": layers, "designs": designs, "train": train}


def tuning_summary(res: dict[str, Any]) -> list[dict[str, Any]]:
    """Per recipe: median (over seeds of the per-seed median over runs) measurements and wall time to 95%
    (unreached runs count as the budget + 1), runs that reached it, search steps, invalid share, best."""
    out = []
    recipes = list(dict.fromkeys(r["recipe"] for r in res["runs"]))
    seeds = sorted({r["seed"] for r in res["runs"]})
    for rec in recipes:
        rs = [r for r in res["runs"] if r["recipe"] == rec]

        def med(key: str, default: float | None = None, rs: list = rs) -> float:
            per = []
            for s in seeds:
                vals = [r[key] if r[key] is not None else default for r in rs if r["seed"] == s]
                vals = [v for v in vals if v is not None]
                if vals:
                    per.append(float(np.median(vals)))
            return float(np.median(per)) if per else float("nan")

        out.append({"recipe": rec, "runs": len(rs), "reached": sum(r["to_95"] is not None for r in rs),
                    "to_95": med("to_95", res["trials"] + 1), "wall_to_95_s": med("wall_to_95"),
                    "reached_99": sum(r["to_99"] is not None for r in rs), "to_99": med("to_99", res["trials"] + 1),
                    "steps": med("steps"), "invalid": med("invalid"), "best": med("best")})
    return out
