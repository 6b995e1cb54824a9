"""``tensortune bench ml2tuner``: ML2Tuner vs AutoTVM, and Chameleon with and without the validity model V.

Layers: ResNet-18 conv layers on the VTA-like accelerator's default design (ML2Tuner's Table 2 layers) and
evaluation layers on this CPU. Tuners, interleaved per seed so machine drift hits all alike: autotvm,
ml2tuner (N=10, alpha=1), chameleon, chameleon+v. Per layer and seed:

- autotvm's convergence point, as the paper defines it: the first measurement after which autotvm's
  best value has repeated more than 10 times; the figure is how many measurements each other tuner
  needs to reach that best value, as a share of autotvm's convergence point (the paper: 12.3%);
- the invalid share of measurements (the paper: ML2Tuner 60.8% fewer invalid than TVM);
- RMSE of model A over RMSE of model P (the paper: 0.919): both fitted on the run's valid outcomes
  with the paper's settings, scored on held-out valid configurations none of the runs measured.

Every run is a ``RunTrace`` in ``results.json`` (a rerun resumes layer by layer); ``report.md`` and
``curves.png`` are written beside it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.bench.report import plot_best_curves, pyplot, save_figure, table, write_markdown
from tensortune.bench.results import ResultsFile, commands_of
from tensortune.bench.traces import RunTrace, run_recipe
from tensortune.core.stats import median, trials_to_reach

TUNERS = ("autotvm", "ml2tuner", "chameleon", "chameleon+v")
CPU = {"kind": "llvm", "num-cores": 2}


@dataclass
class ML2TunerConfig:
    vta_trials: int = 200
    cpu_trials: int = 96
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    vta_layers: list[str] = field(default_factory=lambda: [f"resnet18:{i}" for i in range(1, 12)])
    cpu_layers: list[str] = field(default_factory=lambda: ["L6", "L8"])
    n_test: int = 100  # held-out valid configurations for the RMSE (VTA)
    cpu_n_test: int = 30  # held-out configurations for the RMSE (CPU)

    def __post_init__(self) -> None:
        from tensortune.workloads import resolve_layer

        if self.vta_trials < 1 or self.cpu_trials < 1 or not self.seeds:
            raise ValueError("ml2tuner needs positive budgets and at least one seed")
        if not self.vta_layers and not self.cpu_layers:
            raise ValueError("ml2tuner needs at least one layer")
        for name in self.vta_layers + self.cpu_layers:
            resolve_layer(name)  # a clear error for an unknown layer, before anything runs


def convergence(curve: list[float] | np.ndarray, repeats: int = 10) -> tuple[int, float] | None:
    """(measurement index, best value) where the best has stayed the same for more than ``repeats``
    measurements; None if it never settles."""
    run = 0
    for i in range(1, len(curve)):
        run = run + 1 if curve[i] == curve[i - 1] and curve[i] > 0 else 0
        if run > repeats:
            return i + 1, float(curve[i])
    return None


def held_out(task: Any, measurer: Any, n: int, exclude: set[int], rng: np.random.Generator) -> tuple[list, list[float]]:
    from tensortune.core.values import MeasureInput

    cfgs = task.space.sample(4 * n, rng, exclude={task.space.config(i) for i in exclude})
    res = measurer.measure([MeasureInput(task, c) for c in cfgs])
    good = [(c, task.flops / r.cost) for c, r in zip(cfgs, res, strict=True) if r.ok][:n]
    return [c for c, _ in good], [y for _, y in good]


def rmse_ratio(task: Any, hidden: Any, cfgs: list, ys: list[float], test_c: list, test_y: list[float],
               seed: int) -> float | None:
    from tensortune.strategies.ml2tuner import fit_p_and_a

    test = set(test_c)
    train = [(c, y) for c, y in zip(cfgs, ys, strict=True) if c not in test]
    if sum(1 for _, y in train if y > 0) < 5 or len(test_c) < 5:
        return None
    p, a = fit_p_and_a(task.space, hidden, [c for c, _ in train], [y for _, y in train], seed)
    top = max(y for _, y in train)
    t = np.array(test_y) / top  # both models predict throughput normalised by the training best
    vis = task.space.encode(test_c)
    rp = float(np.sqrt(np.mean((p.predict(vis) - t) ** 2)))
    ra = float(np.sqrt(np.mean((a.predict(np.hstack([vis, hidden(test_c)])) - t) ** 2)))
    return ra / rp if rp > 0 else None


def run_layer(res: ResultsFile, task: Any, target: str, measurer: Any, trials: int, seeds: list[int],
              n_test: int) -> dict[str, Any]:
    """Every tuner and seed on one layer (skipping runs already in ``res``), then the held-out RMSE."""
    from tensortune.features import HiddenFeatures

    hidden = HiddenFeatures(task)
    name = task.name
    for seed in seeds:
        for tuner in TUNERS:
            if res.has_trace(tuner, name, seed):
                continue
            trace, _, strat = run_recipe(tuner, task, measurer, seed, trials, layer=name, options={"plan_size": 32},
                                         keep_configs=True)
            trace.extra["compile_s"] = float(getattr(getattr(strat, "hidden", None), "seconds", 0.0))
            res.add_trace(trace)
    row = res.find("layers", layer=name)
    if row is None:
        traces = [res.trace(t, name, s) for t in TUNERS for s in seeds]
        measured = {i for tr in traces for i in tr.extra["configs"]}
        test_c, test_y = held_out(task, measurer, n_test, measured, np.random.default_rng(123))
        rmse = {}
        for tr in traces:
            cfgs = [task.space.config(i) for i in tr.extra["configs"]]
            rmse[f"{tr.tuner}/{tr.seed}"] = rmse_ratio(task, hidden, cfgs, [g * 1e9 for g in tr.gflops], test_c,
                                                       test_y, tr.seed)
        row = {"layer": name, "shape": task.workload.describe(), "target": target, "n_test": len(test_c),
               "rmse_a_over_p": rmse}
        res.add("layers", row)
    return row


def layer_figures(res_doc: dict[str, Any], row: dict[str, Any]) -> dict[str, list[dict[str, Any]]]:
    """Per tuner, per seed: best, invalid share, A/P, autotvm's convergence point and the share of it
    needed to reach autotvm's converged best (paired by seed)."""
    traces = {(t["tuner"], t["seed"]): RunTrace.from_json(t) for t in res_doc["traces"] if t["layer"] == row["layer"]}
    seeds = sorted({s for _, s in traces})
    out: dict[str, list[dict[str, Any]]] = {t: [] for t in TUNERS}
    for seed in seeds:
        base = traces.get(("autotvm", seed))
        conv = convergence(base.curve()) if base is not None else None
        for t in TUNERS:
            tr = traces.get((t, seed))
            if tr is None:
                continue
            to_conv = trials_to_reach(tr.curve(), conv[1], rel_tol=1e-9) if conv else None
            out[t].append({"seed": seed, "best_gflops": tr.best(), "invalid_share": tr.invalid_share(),
                           "rmse_a_over_p": row["rmse_a_over_p"].get(f"{t}/{seed}"),
                           "autotvm_converged_at": conv[0] if conv else None,
                           "share_of_autotvm": to_conv / conv[0] if conv and to_conv is not None else None})
    return out


def run_ml2tuner(cfg: ML2TunerConfig, out: Path, command: str = "", progress: bool = True) -> ResultsFile:
    from rich.console import Console

    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer
    from tensortune.measure.vta_measurer import VtaSimMeasurer
    from tensortune.templates import make_task
    from tensortune.workloads import resolve_layer

    console = Console(stderr=True, quiet=not progress)
    res = ResultsFile(out / "results.json", asdict(cfg), command, sections=("layers",))
    t0 = time.perf_counter()
    for name in cfg.vta_layers:
        _, wl = resolve_layer(name)
        task = make_task(wl, "conv2d_nchw.vta-sim", {"kind": "vta-sim"}, name)
        row = run_layer(res, task, "vta-sim", VtaSimMeasurer(), cfg.vta_trials, cfg.seeds, cfg.n_test)
        console.log(summary_line(res.doc, row) + f" | {time.perf_counter() - t0:.0f} s")
    if cfg.cpu_layers:
        with TvmMeasurer(build_workers=2, timing=TimingPolicy(5, 40), run_threads=2) as m:
            for name in cfg.cpu_layers:
                _, wl = resolve_layer(name)
                task = make_task(wl, "conv2d_nchw.llvm", CPU, name)
                row = run_layer(res, task, "llvm (2 cores)", m, cfg.cpu_trials, cfg.seeds, cfg.cpu_n_test)
                console.log(summary_line(res.doc, row) + f" | {time.perf_counter() - t0:.0f} s")
    res.doc.setdefault("seconds", 0.0)
    res.doc["seconds"] += time.perf_counter() - t0
    res.finish()
    return res


def _med(xs: list[Any]) -> float:
    xs = [x for x in xs if x is not None]
    return median(xs) if xs else float("nan")


def summary_line(doc: dict[str, Any], row: dict[str, Any]) -> str:
    f = layer_figures(doc, row)
    return f"{row['layer']:12s} " + " | ".join(
        f"{t} {_med([r['best_gflops'] for r in f[t]]):.1f} GF/s inv {100 * _med([r['invalid_share'] for r in f[t]]):.0f}%"
        f" share {_med([r['share_of_autotvm'] for r in f[t]]):.2f}" for t in TUNERS)


def write_ml2tuner_report(doc: dict[str, Any], out: Path) -> Path:
    cfg = doc["config"]
    lines = ["# ML2Tuner vs AutoTVM, Chameleon with and without V", "", "Produced by:", "", "```",
             commands_of(doc), "```", "",
             f"{doc.get('seconds', 0) / 60:.1f} min, seeds {cfg['seeds']}. Accelerator: the VTA-like model on its "
             f"default design, {cfg['vta_trials']} measurements per run. CPU: this machine, {cfg['cpu_trials']} "
             "measurements per run.", "",
             "Columns per tuner, medians over seeds: best throughput; invalid share of measurements; 'share' = "
             "measurements to reach autotvm's converged best (its best when it first repeated more than 10 times) "
             "divided by autotvm's convergence point, paired by seed ('-' if never reached; ML2Tuner's paper: "
             "12.3%); 'A/P' = RMSE of model A over RMSE of model P on held-out valid configurations, both fitted on "
             "the run's valid outcomes (the paper: 0.919).", ""]
    head = ["layer", "target", "autotvm conv. at"]
    for t in TUNERS:
        head += [f"{t} GOP/s", "inv", "share", "A/P"]
    rows = []
    agg: dict[str, dict[str, list]] = {t: {"share": [], "inv": [], "ap": [], "reached": []} for t in TUNERS}
    figs = []
    for row in doc["layers"]:
        f = layer_figures(doc, row)
        figs.append((row, f))
        cells = [row["layer"], row["target"], f"{_med([r['autotvm_converged_at'] for r in f['autotvm']]):.0f}"]
        for t in TUNERS:
            shares = [r["share_of_autotvm"] for r in f[t]]
            hit = [s for s in shares if s is not None]
            cells += [f"{_med([r['best_gflops'] for r in f[t]]):.1f}",
                      f"{100 * _med([r['invalid_share'] for r in f[t]]):.0f}%",
                      f"{100 * median(hit):.0f}% ({len(hit)}/{len(shares)})" if hit else "-",
                      f"{_med([r['rmse_a_over_p'] for r in f[t]]):.3f}"]
            agg[t]["share"] += hit
            agg[t]["reached"] += [s is not None for s in shares]
            agg[t]["inv"].append(_med([r["invalid_share"] for r in f[t]]))
            agg[t]["ap"] += [r["rmse_a_over_p"] for r in f[t] if r["rmse_a_over_p"] is not None]
        rows.append(cells)
    lines += [table(head, rows), ""]
    base_inv = _med(agg["autotvm"]["inv"])
    summary = []
    for t in TUNERS:
        g = agg[t]
        rel = (_med(g["inv"]) - base_inv) / base_inv if base_inv > 0 else float("nan")
        summary.append([t, f"{100 * _med(g['share']):.1f}%", f"{sum(g['reached'])}/{len(g['reached'])}",
                        f"{100 * _med(g['inv']):.1f}%", f"{100 * rel:+.1f}%", f"{_med(g['ap']):.3f}"])
    lines += ["## Summary (all layers and seeds)", "",
              table(["tuner", "share of autotvm's measurements to reach its converged best (median)", "reached",
                     "invalid share (median of layers)", "vs autotvm's invalid share", "RMSE A/P (median)"], summary)]
    for target in sorted({r["target"] for r in doc["layers"]}):
        sub = [f for r, f in figs if r["target"] == target]
        inv = {t: _med([_med([x["invalid_share"] for x in f[t]]) for f in sub]) for t in TUNERS}
        lines += ["", f"{target}: median invalid share " + ", ".join(f"{t} {100 * v:.1f}%" for t, v in inv.items())]
    n = len(doc["layers"])
    if n:
        plt = pyplot()
        runs: dict[tuple[str, str], list[RunTrace]] = {}
        for t in doc["traces"]:
            runs.setdefault((t["layer"], t["tuner"]), []).append(RunTrace.from_json(t))
        cols = min(4, n)
        nrows = -(-n // cols)
        fig, axes = plt.subplots(nrows, cols, figsize=(4 * cols, 3.2 * nrows), squeeze=False)
        for ax, row in zip(axes.flat, doc["layers"], strict=False):
            for t in TUNERS:
                plot_best_curves(ax, runs.get((row["layer"], t), []), t)
            ax.set_title(f"{row['layer']} ({row['target'].split()[0]})", fontsize=9)
            ax.set_xlabel("measurements", fontsize=8)
            ax.set_ylabel("best GOP/s", fontsize=8)
        for ax in list(axes.flat)[n:]:
            ax.axis("off")
        axes[0][0].legend(fontsize=7)
        save_figure(fig, out / "curves.png", dpi=110)
        lines += ["", "![best throughput against measurements, median and range over seeds](curves.png)", ""]
    return write_markdown(out, lines)
