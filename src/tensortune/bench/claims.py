"""``tensortune claims``: each seed paper's headline ratio, measured again here, in one table.

Three parts, each resumable (its own ``results.json`` under ``--out``):

- **Chameleon and ReLeASE** (``chameleon/``): ``autotvm`` (with XGBoost regression, as the Chameleon
  paper's Table 8 configures it), ``rl``, ``sa-as``, ``chameleon`` and ``release`` on the same spaces as
  ``bench chameleon`` (this CPU's ground-truth tables, replayed, and VTA co-design spaces), same budget,
  seeds interleaved. Wall time on the tables is the tuner's own time plus what each replayed measurement
  cost when the table was measured; on the accelerator model it is the tuner's own time.
- **ML2Tuner** (``ml2tuner/``): ``bench ml2tuner`` on VTA layers (invalid share, share of autotvm's
  measurements, RMSE of model A over model P).
- **ARCO** (``arco/``): ``bench vta-arco`` on one model's layers (co-design throughput against
  autotvm's software-only tuning, measurements).

Glimpse has no rows yet: it is not built (issue 17).
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.bench.chameleon_study import DEFAULT_SPACES, study_space
from tensortune.bench.report import table, write_markdown
from tensortune.bench.results import ResultsFile
from tensortune.bench.traces import RunTrace, run_recipe
from tensortune.core.stats import median

CHAMELEON_RECIPES = ("autotvm", "rl", "sa-as", "chameleon", "release")
RECIPE_OPTIONS: dict[str, dict[str, Any]] = {"autotvm": {"loss": "reg"}}  # Chameleon's Table 8: xgb-reg


@dataclass
class ClaimsConfig:
    spaces: list[str] = field(default_factory=lambda: list(DEFAULT_SPACES))
    seeds: list[int] = field(default_factory=lambda: list(range(10)))
    trials: int = 256
    variant: str = "paper"
    ml2_layers: list[str] = field(default_factory=lambda: ["resnet18:2", "resnet18:3", "resnet18:5"])
    ml2_trials: int = 200
    arco_model: str = "resnet18"
    side_seeds: list[int] = field(default_factory=lambda: [0, 1, 2])  # ML2Tuner and ARCO

    def __post_init__(self) -> None:
        if not self.spaces or not self.seeds or self.trials < 64:
            raise ValueError("claims need spaces, seeds and at least 64 trials")
        if self.variant not in ("paper", "code"):
            raise ValueError(f"--variant: 'paper' or 'code', not {self.variant!r}")


def run_chameleon_suite(cfg: ClaimsConfig, out: Path, command: str, console: Any) -> ResultsFile:
    res = ResultsFile(out / "chameleon" / "results.json",
                      {"spaces": cfg.spaces, "seeds": cfg.seeds, "trials": cfg.trials, "variant": cfg.variant},
                      command)
    spaces = [study_space(s) for s in cfg.spaces]
    t0 = time.perf_counter()
    for seed in cfg.seeds:
        for sp in spaces:
            for name in CHAMELEON_RECIPES:
                if res.has_trace(name, sp.name, seed):
                    continue
                opts = {**RECIPE_OPTIONS.get(name, {}), "variant": cfg.variant}
                trace, s, strat = run_recipe(name, sp.task, sp.make_measurer(), seed, cfg.trials, layer=sp.name,
                                             mode="replay" if sp.kind == "table" else "live", options=opts)
                trace.extra.update({"optimum": sp.optimum, "steps": [r.steps for r in strat.rounds],
                                    "plans": [r.plan for r in strat.rounds]})
                res.add_trace(trace)
            console.log(f"chameleon suite: seed {seed} {sp.name} | {time.perf_counter() - t0:.0f} s")
    res.finish()
    return res


def _ratio_rows(doc: dict[str, Any], cand: str, paper: str) -> list[list[str]]:
    """Chameleon's (or ReLeASE's) headline figures from the suite's traces."""
    tr = [RunTrace.from_json(t) for t in doc["traces"]]
    by = {(t.tuner, t.layer, t.seed): t for t in tr}
    pairs = [(by[("autotvm", lay, s)], t) for (n, lay, s), t in by.items() if n == cand and ("autotvm", lay, s) in by]
    sa_pairs = [(by[("autotvm", lay, s)], t) for (n, lay, s), t in by.items() if n == "sa-as" and ("autotvm", lay, s) in by]
    rl_pairs = [(by[("rl", lay, s)], t) for (n, lay, s), t in by.items() if n == cand and ("rl", lay, s) in by]

    def steps(t: RunTrace) -> float:
        return float(np.mean(t.extra["steps"] or [0]))  # model rounds (the random first plan is none)

    def per_round(t: RunTrace) -> float:
        return float(np.mean(t.extra["plans"] or [0]))

    step_ratio = median(steps(a) / max(steps(c), 1e-9) for a, c in pairs)
    meas_rl = median(per_round(r) / max(per_round(c), 1e-9) for r, c in rl_pairs)
    meas_sa = median(per_round(a) / max(per_round(c), 1e-9) for a, c in sa_pairs)
    to_best, wall_best, reached = [], [], 0
    for a, c in pairs:
        target = a.best()
        n_a, n_c = a.trials_to(target), c.trials_to(target)
        if n_c is not None:
            reached += 1
            to_best.append(n_a / n_c)
            wall_best.append(a.wall[n_a - 1] / max(c.wall[n_c - 1], 1e-9))
    speed = median(c.best() / max(a.best(), 1e-12) for a, c in pairs)
    n = len(pairs)
    rmed = f"{median(to_best):.2f}x" if to_best else "never"
    wmed = f"{median(wall_best):.2f}x" if wall_best else "never"
    label = "Chameleon" if cand == "chameleon" else "ReLeASE"
    return [
        [label, "search steps per round, SA / RL", "2.88x", f"{step_ratio:.2f}x", f"median of {n} paired runs"],
        [label, "configs measured per round, RL greedy / RL+AS", "2.33x", f"{meas_rl:.2f}x", "model rounds"],
        [label, "configs measured per round, SA greedy / SA+AS", "1.98x", f"{meas_sa:.2f}x", "model rounds"],
        [label, "measurements to reach autotvm's final best, autotvm / ours", paper, f"{rmed} ({reached}/{n} reached)",
         "paired by space and seed"],
        [label, "wall time to reach autotvm's final best, autotvm / ours", "4.45x", f"{wmed} ({reached}/{n} reached)",
         "replay: tuner time + recorded measurement cost"],
        [label, "final code speed, ours / autotvm", "up to 1.064x", f"{speed:.3f}x", "median; same budget"],
    ]


def _ml2_rows(doc: dict[str, Any]) -> list[list[str]]:
    from tensortune.bench.ml2tuner import _med, layer_figures

    agg: dict[str, dict[str, list[Any]]] = {t: {"share": [], "inv": [], "ap": []} for t in ("autotvm", "ml2tuner")}
    for row in doc["layers"]:
        f = layer_figures(doc, row)
        for t in agg:
            agg[t]["share"] += [r["share_of_autotvm"] for r in f[t] if r["share_of_autotvm"] is not None]
            agg[t]["inv"].append(_med([r["invalid_share"] for r in f[t]]))
            agg[t]["ap"] += [r["rmse_a_over_p"] for r in f[t] if r["rmse_a_over_p"] is not None]
    inv_a, inv_m = _med(agg["autotvm"]["inv"]), _med(agg["ml2tuner"]["inv"])
    return [
        ["ML2Tuner", "share of autotvm's measurements to reach its converged best", "12.3%",
         f"{100 * _med(agg['ml2tuner']['share']):.1f}%", "VTA model, default design"],
        ["ML2Tuner", "fewer invalid measurements than autotvm", "60.8%",
         f"{100 * (1 - inv_m / inv_a):.1f}%" if inv_a > 0 else "-", f"invalid share {100 * inv_a:.0f}% -> {100 * inv_m:.0f}%"],
        ["ML2Tuner", "RMSE of model A / model P", "0.919", f"{_med(agg['ml2tuner']['ap']):.3f}", "held-out valid configs"],
    ]


def _arco_rows(doc: dict[str, Any]) -> list[list[str]]:
    tr = [RunTrace.from_json(t) for t in doc["traces"] if not t["layer"].endswith(":all")]
    by = {(t.tuner, t.layer, t.seed): t for t in tr}
    gains, reach = [], []
    for (n, lay, s), t in by.items():
        a = by.get(("autotvm", lay, s))
        if n != "arco" or a is None:
            continue
        gains.append(t.best() / max(a.best(), 1e-12))
        n_a, n_c = a.trials_to(a.best()), t.trials_to(a.best())
        if n_c is not None:
            reach.append(1 - n_c / n_a)
    return [
        ["ARCO", "throughput, arco (co-design) / autotvm (default design)", "up to 1.38x",
         f"median {median(gains):.2f}x, max {max(gains):.2f}x" if gains else "-", "same measurement budget"],
        ["ARCO", "fewer measurements to reach autotvm's best", "up to 42.2% less time",
         f"median {100 * median(reach):.0f}% ({len(reach)}/{len(gains)} reached)" if reach else f"never (0/{len(gains)})",
         "measurements stand in for time on the model"],
    ]


def run_claims(cfg: ClaimsConfig, out: Path, command: str = "", progress: bool = True) -> dict[str, Any]:
    from rich.console import Console

    from tensortune.bench.ml2tuner import ML2TunerConfig, run_ml2tuner
    from tensortune.bench.vta_arco import VtaArcoConfig, run_vta_arco

    console = Console(stderr=True, quiet=not progress)
    t0 = time.perf_counter()
    ch = run_chameleon_suite(cfg, out, command, console)
    ml = run_ml2tuner(ML2TunerConfig(vta_trials=cfg.ml2_trials, cpu_trials=64, seeds=cfg.side_seeds,
                                     vta_layers=cfg.ml2_layers, cpu_layers=[]), out / "ml2tuner", command, progress)
    ar = run_vta_arco(VtaArcoConfig(seeds=cfg.side_seeds, models=[cfg.arco_model]), out / "arco", command, progress)
    return {"config": asdict(cfg), "command": command, "seconds": time.perf_counter() - t0,
            "rows": _ratio_rows(ch.doc, "chameleon", "not stated")
            + _ratio_rows(ch.doc, "release", "not stated") + _ml2_rows(ml.doc) + _arco_rows(ar.doc)}


def write_claims_report(doc: dict[str, Any], out: Path) -> Path:
    from tensortune.bench.groundtruth import machine_description

    cfg = doc["config"]
    m = machine_description()
    lines = ["# The seed papers' headline claims, measured here", "",
             f"Command: `{doc.get('command') or 'tensortune claims'}` ({doc['seconds'] / 60:.1f} min this call; "
             "parts already in the results files are reused).", "",
             f"Machine: {m['cpu']} (LLVM `{m['llvm_cpu']}`), {m['cores']} cores, TVM {m['tvm']}. Chameleon/ReLeASE: "
             f"spaces {', '.join(cfg['spaces'])}, {cfg['trials']} measurements, seeds {cfg['seeds']}, PPO variant "
             f"'{cfg['variant']}', autotvm with XGBoost regression (the Chameleon paper's Table 8). ML2Tuner: "
             f"{', '.join(cfg['ml2_layers'])} on the VTA model, {cfg['ml2_trials']} measurements, seeds "
             f"{cfg['side_seeds']}. ARCO: {cfg['arco_model']}'s layers on the VTA model (`bench vta-arco` defaults), "
             f"seeds {cfg['side_seeds']}. Glimpse: not built yet (issue 17).", "",
             table(["system", "claim", "paper", "ours", "setup"], doc["rows"]), ""]
    return write_markdown(out, lines, name="claims.md")
