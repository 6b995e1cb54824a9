"""Issue 5 benchmark: ML2Tuner vs AutoTVM, and Chameleon with and without the validity model V.

    .venv/bin/python bench/ml2tuner.py --vta-trials 200 --cpu-trials 96 --seeds 0,1,2 --out results/ml2tuner

Layers: every unique ResNet-18 conv layer on the VTA-like accelerator's default design (ML2Tuner's Table 2
layers) and L6/L8 on this CPU. Tuners, interleaved per seed so machine drift hits all alike: autotvm,
ml2tuner (N=10, alpha=1), chameleon, chameleon+v. Per layer and seed:

- autotvm's convergence point, as the paper defines it: the first measurement after which autotvm's
  best value has repeated more than 10 times; the figure is how many measurements each other tuner
  needs to reach that best value, as a share of autotvm's convergence point (the paper: 12.3%);
- the invalid share of measurements (the paper: ML2Tuner 60.8% fewer invalid than TVM);
- RMSE of model A over RMSE of model P (the paper: 0.919): both fitted on the run's valid outcomes
  with the paper's settings, scored on held-out valid configurations none of the runs measured.

Writes report.md, results.json and curves.png to --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tensortune.core.stats import median, trials_to_reach
from tensortune.core.values import MeasureInput, Task
from tensortune.features import HiddenFeatures
from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer
from tensortune.measure.vta_measurer import VtaSimMeasurer
from tensortune.storage import SQLiteStorage
from tensortune.strategies.ml2tuner import fit_p_and_a
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create
from tensortune.workloads import MODELS, resolve_layer

TUNERS = ("autotvm", "ml2tuner", "chameleon", "chameleon+v")
CPU = {"kind": "llvm", "num-cores": 2}


def convergence(curve: list[float], repeats: int = 10) -> tuple[int, float] | None:
    """(measurement index, best value) where the best has stayed the same for more than ``repeats``
    measurements; None if it never settles."""
    run = 0
    for i in range(1, len(curve)):
        run = run + 1 if curve[i] == curve[i - 1] and curve[i] > 0 else 0
        if run > repeats:
            return i + 1, curve[i]
    return None


def reach(curve: list[float], value: float) -> int | None:
    return trials_to_reach(curve, value, rel_tol=1e-9)


def held_out(task: Task, measurer, n: int, exclude: set, rng) -> tuple[list, list[float]]:  # type: ignore[no-untyped-def]
    cfgs = task.space.sample(4 * n, rng, exclude=exclude)
    res = measurer.measure([MeasureInput(task, c) for c in cfgs])
    good = [(c, task.flops / r.cost) for c, r in zip(cfgs, res, strict=True) if r.ok][:n]
    return [c for c, _ in good], [y for _, y in good]


def rmse_ratio(task: Task, hidden: HiddenFeatures, cfgs, ys, test_c, test_y, seed: int) -> float | None:  # type: ignore[no-untyped-def]
    train = [(c, y) for c, y in zip(cfgs, ys, strict=True) if c not in set(test_c)]
    if sum(1 for _, y in train if y > 0) < 5 or len(test_c) < 5:
        return None
    p, a = fit_p_and_a(task.space, hidden, [c for c, _ in train], [y for _, y in train], seed)
    top = max(y for _, y in train)
    t = np.array(test_y) / top  # both models predict throughput normalised by the training best
    vis = task.space.encode(test_c)
    rp = float(np.sqrt(np.mean((p.predict(vis) - t) ** 2)))
    ra = float(np.sqrt(np.mean((a.predict(np.hstack([vis, hidden(test_c)])) - t) ** 2)))
    return ra / rp if rp > 0 else None


def run_layer(task: Task, measurer, trials: int, seeds: list[int], db: SQLiteStorage, n_test: int) -> dict:  # type: ignore[no-untyped-def]
    hidden = HiddenFeatures(task)
    out: dict = {"layer": task.name, "shape": task.workload.describe(), "runs": {t: [] for t in TUNERS}}
    for seed in seeds:
        for tuner in TUNERS:
            strat = create(tuner, task.space, seed, plan_size=32, task=task)
            s = Tuner(task, strat, measurer, db, Budget(trials=trials), tuner_name=tuner, seed=seed, batch_size=16,
                      remeasure_best=False).run()
            out["runs"][tuner].append({"seed": seed, "curve": s.curve, "invalid_share": s.errors / max(1, s.trials),
                                       "best_gflops": s.best_gflops, "wall_s": s.wall_seconds,
                                       "search_s": s.search_seconds, "cfgs": list(strat.xs), "ys": list(strat.ys),
                                       "compile_s": getattr(getattr(strat, "hidden", None), "seconds", 0.0)})
    measured = {c for runs in out["runs"].values() for r in runs for c in r["cfgs"]}
    test_c, test_y = held_out(task, measurer, n_test, measured, np.random.default_rng(123))
    out["n_test"] = len(test_c)
    for runs in out["runs"].values():
        for r in runs:
            r["rmse_a_over_p"] = rmse_ratio(task, hidden, r["cfgs"], r["ys"], test_c, test_y, r["seed"])
    for runs in out["runs"].values():  # paired by seed with autotvm's run
        for r, base in zip(runs, out["runs"]["autotvm"], strict=True):
            conv = convergence(base["curve"])
            r["autotvm_converged_at"] = conv[0] if conv else None
            r["to_autotvm_converged"] = reach(r["curve"], conv[1]) if conv else None
            r["share_of_autotvm"] = (r["to_autotvm_converged"] / conv[0]
                                     if conv and r["to_autotvm_converged"] is not None else None)
            r["to_autotvm_final"] = reach(r["curve"], base["curve"][-1])
    for runs in out["runs"].values():
        for r in runs:
            del r["cfgs"], r["ys"]
    return out


def summary_line(res: dict) -> str:
    parts = []
    for t in TUNERS:
        rs = res["runs"][t]
        parts.append(f"{t} {median([r['best_gflops'] for r in rs]):.1f} GF/s inv {100 * median([r['invalid_share'] for r in rs]):.0f}%"
                     f" share {median([r['share_of_autotvm'] for r in rs]):.2f}")
    return f"{res['layer']:12s} " + " | ".join(parts)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vta-trials", type=int, default=200)
    ap.add_argument("--cpu-trials", type=int, default=96)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--vta-layers", default=",".join(f"resnet18:{i}" for i in range(1, len(MODELS["resnet18"]) + 1)))
    ap.add_argument("--cpu-layers", default="L6,L8")
    ap.add_argument("--n-test", type=int, default=100, help="held-out valid configurations for the RMSE (VTA)")
    ap.add_argument("--cpu-n-test", type=int, default=30, help="held-out configurations for the RMSE (CPU)")
    ap.add_argument("--out", default="results/ml2tuner")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    db = SQLiteStorage(str(Path(tempfile.mkdtemp()) / "ml2.db"))
    t0 = time.perf_counter()
    results = []
    for name in [x for x in a.vta_layers.split(",") if x]:
        _, wl = resolve_layer(name)
        res = run_layer(make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim"}, name), VtaSimMeasurer(),
                        a.vta_trials, seeds, db, a.n_test)
        res["target"] = "vta-sim"
        results.append(res)
        print(summary_line(res), f"| {time.perf_counter() - t0:.0f} s", flush=True)
        (out / "partial.json").write_text(json.dumps(results))  # nothing lost if a later layer fails
    if a.cpu_layers:
        with TvmMeasurer(build_workers=2, timing=TimingPolicy(5, 40), run_threads=2) as m:
            for name in a.cpu_layers.split(","):
                _, wl = resolve_layer(name)
                res = run_layer(make_task(wl, "conv2d_nchw.llvm", CPU, name), m, a.cpu_trials, seeds, db, a.cpu_n_test)
                res["target"] = "llvm (2 cores)"
                results.append(res)
                print(summary_line(res), f"| {time.perf_counter() - t0:.0f} s", flush=True)
                (out / "partial.json").write_text(json.dumps(results))
    total = time.perf_counter() - t0
    cmd = "python " + " ".join(sys.argv)
    (out / "results.json").write_text(json.dumps({"command": cmd, "seconds": total, "layers": results}, indent=1))
    write_report(out, cmd, results, a, total)
    print(f"report: {out / 'report.md'}")
    return 0


def write_report(out: Path, cmd: str, results: list, a, total: float) -> None:  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    lines = ["# ML2Tuner vs AutoTVM, Chameleon with and without V", "",
             f"Command: `{cmd}` ({total / 60:.1f} min), seeds {a.seeds}. Accelerator: the VTA-like model on its default "
             f"design, {a.vta_trials} measurements per run. CPU: this machine, {a.cpu_trials} measurements per run.", "",
             "Columns per tuner, medians over seeds: best throughput; invalid share of measurements; 'share' = "
             "measurements to reach autotvm's converged best (its best when it first repeated more than 10 times) "
             "divided by autotvm's convergence point, paired by seed ('-' if never reached; ML2Tuner's paper: "
             "12.3%); 'A/P' = RMSE of model A over RMSE of model P on held-out valid configurations, both fitted on "
             "the run's valid outcomes (the paper: 0.919).", ""]
    head = "| layer | target | autotvm conv. at | " + " | ".join(f"{t} GOP/s | inv | share | A/P" for t in TUNERS) + " |"
    lines += [head, "|" + "---|" * (3 + 4 * len(TUNERS))]
    agg: dict[str, dict[str, list]] = {t: {"share": [], "inv": [], "ap": [], "reached": []} for t in TUNERS}
    for res in results:
        rs = res["runs"]
        cells = [res["layer"], res["target"], f"{median([r['autotvm_converged_at'] for r in rs['autotvm']]):.0f}"]
        for t in TUNERS:
            shares = [r["share_of_autotvm"] for r in rs[t]]
            cells += [f"{median([r['best_gflops'] for r in rs[t]]):.1f}", f"{100 * median([r['invalid_share'] for r in rs[t]]):.0f}%",
                      ("-" if all(s is None for s in shares) else f"{100 * median(shares):.0f}% ({sum(s is not None for s in shares)}/{len(shares)})"),
                      f"{median([r['rmse_a_over_p'] for r in rs[t]]):.3f}"]
            agg[t]["share"] += [s for s in shares if s is not None]
            agg[t]["reached"] += [s is not None for s in shares]
            agg[t]["inv"].append(median([r["invalid_share"] for r in rs[t]]))
            agg[t]["ap"] += [r["rmse_a_over_p"] for r in rs[t] if r["rmse_a_over_p"] is not None]
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "## Summary (all layers and seeds)", "",
              "| tuner | share of autotvm's measurements to reach its converged best (median) | reached | "
              "invalid share (median of layers) | vs autotvm's invalid share | RMSE A/P (median) |", "|---|---|---|---|---|---|"]
    base_inv = median(agg["autotvm"]["inv"])
    for t in TUNERS:
        g = agg[t]
        rel = (median(g["inv"]) - base_inv) / base_inv if base_inv > 0 else float("nan")
        lines.append(f"| {t} | {100 * median(g['share']):.1f}% | {sum(g['reached'])}/{len(g['reached'])} | "
                     f"{100 * median(g['inv']):.1f}% | {100 * rel:+.1f}% | {median(g['ap']):.3f} |")
    for target in sorted({r["target"] for r in results}):
        sub = [r for r in results if r["target"] == target]
        inv = {t: median([median([x["invalid_share"] for x in r["runs"][t]]) for r in sub]) for t in TUNERS}
        lines += ["", f"{target}: median invalid share " + ", ".join(f"{t} {100 * v:.1f}%" for t, v in inv.items())]
    n = len(results)
    cols = min(4, n)
    rows = -(-n // cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4 * cols, 3.2 * rows), squeeze=False)
    for ax, res in zip(axes.flat, results, strict=False):
        for t in TUNERS:
            c = np.array([r["curve"] for r in res["runs"][t]])
            xs = np.arange(1, c.shape[1] + 1)
            ax.plot(xs, np.median(c, axis=0), label=t)
            ax.fill_between(xs, c.min(axis=0), c.max(axis=0), alpha=0.15)
        ax.set_title(f"{res['layer']} ({res['target'].split()[0]})", fontsize=9)
        ax.set_xlabel("measurements", fontsize=8)
        ax.set_ylabel("best GOP/s", fontsize=8)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "curves.png", dpi=110)
    lines += ["", "![best throughput against measurements, median and range over seeds](curves.png)", ""]
    (out / "report.md").write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
