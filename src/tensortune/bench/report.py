"""The report writer of every benchmark suite: Markdown tables, median [min-max] cells, "reached in k/n"
cells, best-so-far curves (median and range over seeds) and the ground-truth suite's report."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from tensortune.bench.results import commands_of
from tensortune.bench.traces import RunTrace
from tensortune.core.stats import median


def fmt_range(xs: list[float], fmt: str = "{:.1f}") -> str:
    if not xs:
        return "-"
    if len(xs) == 1:
        return fmt.format(xs[0])
    return f"{fmt.format(median(xs))} [{fmt.format(min(xs))}-{fmt.format(max(xs))}]"


def fmt_reach(xs: list[float | None], n: int, fmt: str = "{:.0f}") -> str:
    """Median over the runs that reached the target, and how many did."""
    hit = [x for x in xs if x is not None]
    if not hit:
        return f"never (0/{n})"
    return f"{fmt.format(median(hit))} ({len(hit)}/{n})"


def plot_best_curves(ax, runs: list[RunTrace], label: str, *, transform: Any = None, color: Any = None) -> Any:  # type: ignore[no-untyped-def]
    """Median and [min-max] band of the best-so-far curves of ``runs`` against measurements (up to the
    shortest run); ``transform`` maps the best GFLOP/s curve to what is plotted (e.g. model ms)."""
    runs = [r for r in runs if r.trials]
    if not runs:
        return None
    n = min(r.trials for r in runs)
    curves = np.array([r.curve()[:n] for r in runs])
    if transform is not None:
        curves = transform(curves)
    return plot_band(ax, curves, label, color=color)


def plot_band(ax, curves: Any, label: str, *, color: Any = None, ls: str = "-") -> Any:  # type: ignore[no-untyped-def]
    """One line per measurement count: the median of ``curves`` (runs x measurements, measurement 1 first)
    and a band from their minimum to their maximum."""
    curves = np.asarray(curves, dtype=float)
    x = np.arange(1, curves.shape[1] + 1)
    (line,) = ax.plot(x, np.median(curves, axis=0), label=label, color=color, ls=ls)
    ax.fill_between(x, curves.min(axis=0), curves.max(axis=0), color=line.get_color(), alpha=0.15)
    return line


def pyplot():  # type: ignore[no-untyped-def]
    """matplotlib's pyplot on the file-only backend."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def save_figure(fig, path: Path, dpi: int = 110) -> None:  # type: ignore[no-untyped-def]
    fig.tight_layout()
    fig.savefig(path, dpi=dpi)
    pyplot().close(fig)


def write_markdown(out: Path, lines: list[str], name: str = "report.md") -> Path:
    path = out / name
    path.write_text("\n".join(lines))
    return path


def by_layer_and_tuner(traces: list[RunTrace]) -> dict[tuple[str, str], list[RunTrace]]:
    out: dict[tuple[str, str], list[RunTrace]] = {}
    for t in traces:
        out.setdefault((t.layer, t.tuner), []).append(t)
    return out


def tuner_order(doc: dict[str, Any]) -> list[str]:
    names = list(doc["config"]["recipes"])
    if any(t["tuner"] == "metaschedule" for t in doc["traces"]):
        names.append("metaschedule")
    return names


def main_rows(doc: dict[str, Any], layer: str, budget: int) -> list[list[str]]:
    opt = doc["tables"][layer]["optimum_gflops"]
    groups = by_layer_and_tuner([RunTrace.from_json(t) for t in doc["traces"]])
    rows = []
    for tuner in tuner_order(doc):
        # a run that stopped before this budget (a peer given fewer trials) is not shown at it
        runs = [r for r in groups.get((layer, tuner), []) if r.trials >= budget]
        if not runs:
            continue
        best = [r.best(budget) for r in runs]
        rows.append([
            tuner, runs[0].mode, fmt_range(best), f"{100 * median(best) / opt:.1f}%",
            fmt_reach([r.trials_to(0.95 * opt, budget) for r in runs], len(runs)),
            fmt_reach([r.wall_to(0.95 * opt, budget) for r in runs], len(runs), "{:.0f} s"),
            f"{100 * median([r.invalid_share(budget) for r in runs]):.0f}%",
            f"{100 * median([r.overhead_share() for r in runs]):.0f}%",
        ])
    return rows


def compass_rows(doc: dict[str, Any], budgets: list[int]) -> list[list[str]]:
    """Per recipe: best / MetaSchedule's best at equal trials (median over layers of the per-layer
    median), and measurements to 95% relative to autotvm (median over layer-seed pairs where both reach)."""
    traces = [RunTrace.from_json(t) for t in doc["traces"]]
    groups = by_layer_and_tuner(traces)
    layers = list(doc["tables"])
    rows = []
    for tuner in doc["config"]["recipes"]:
        row = [tuner]
        for b in budgets:
            ratios = []
            for layer in layers:
                ours = groups.get((layer, tuner), [])
                ms = [r for r in groups.get((layer, "metaschedule"), []) if r.trials >= b]
                if ours and ms:
                    ratios.append(median([r.best(b) for r in ours]) / max(median([r.best(b) for r in ms]), 1e-9))
            row.append(f"{median(ratios):.2f}x" if ratios else "-")
        ratios, walls, pairs = [], [], 0
        for layer in layers:
            opt = doc["tables"][layer]["optimum_gflops"]
            base = {r.seed: r for r in groups.get((layer, "autotvm"), [])}
            for r in groups.get((layer, tuner), []):
                if r.seed in base:
                    pairs += 1
                    a, o = base[r.seed].trials_to(0.95 * opt), r.trials_to(0.95 * opt)
                    if a is not None and o is not None:
                        ratios.append(o / a)
                        walls.append(r.wall_to(0.95 * opt) / max(base[r.seed].wall_to(0.95 * opt), 1e-9))
        row.append(f"{median(ratios):.2f} ({len(ratios)}/{pairs})" if ratios else "-")
        row.append(f"{median(walls):.2f}" if walls else "-")
        rows.append(row)
    return rows


def table(header: list[str], rows: list[list[str]]) -> str:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(r) + " |" for r in rows]
    return "\n".join(out)


def plot_layer(doc: dict[str, Any], layer: str, path: Path) -> None:
    plt = pyplot()
    opt = doc["tables"][layer]["optimum_gflops"]
    groups = by_layer_and_tuner([RunTrace.from_json(t) for t in doc["traces"]])
    fig, axes = plt.subplots(1, 2, figsize=(13, 4.8))
    for tuner in tuner_order(doc):
        runs = [r for r in groups.get((layer, tuner), []) if r.trials]
        line = plot_best_curves(axes[0], runs, f"{tuner} ({runs[0].mode})" if runs else tuner)
        if line is None:
            continue
        n = min(r.trials for r in runs)
        # against wall time: a common grid up to the shortest run's end
        tmax = min(r.wall[n - 1] for r in runs)
        grid = np.linspace(0, tmax, 200)
        per = np.array([np.interp(grid, np.asarray(r.wall[:n]), r.curve()[:n], left=0.0) for r in runs])
        axes[1].plot(grid, np.median(per, axis=0), color=line.get_color())
        axes[1].fill_between(grid, per.min(axis=0), per.max(axis=0), color=line.get_color(), alpha=0.15)
    pt = [x["gflops"] for x in doc["pytorch"] if x["layer"] == layer]
    for ax in axes:
        ax.axhline(opt, color="k", ls="--", lw=1, label="table optimum")
        ax.axhline(0.95 * opt, color="k", ls=":", lw=1, label="95% of optimum")
        if pt:
            gpu = bool(doc["tables"][layer]["meta"].get("machine", {}).get("gpu"))
            ax.axhline(median(pt), color="tab:gray", ls="-.", lw=1.2, label="cuDNN fp32" if gpu else "PyTorch oneDNN")
        ax.set_ylabel("best GFLOP/s so far")
        ax.grid(alpha=0.3)
    axes[0].set_xlabel("measurements")
    axes[0].set_xscale("log")
    axes[1].set_xlabel("wall time (s; replay: recorded measurement cost + real tuner time)")
    axes[1].set_xscale("symlog", linthresh=10)
    axes[1].set_xlim(left=0)
    axes[0].legend(fontsize=8, loc="lower right")
    fig.suptitle(f"{layer}: median and range over seeds")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def write_report(doc: dict[str, Any], out: Path) -> Path:
    cfg = doc["config"]
    budgets = cfg["budgets"]
    layers = list(doc["tables"])
    meta0 = next(iter(doc["tables"].values()))["meta"] if doc["tables"] else {}
    gpu = bool(meta0.get("machine", {}).get("gpu"))
    lib = "cuDNN fp32" if gpu else "PyTorch oneDNN"
    where = ("measured earlier on a GPU" if gpu else "measured earlier on this machine")
    live = ("Nothing runs live (the tables' GPU is not here)." if gpu else
            "MetaSchedule (`tune_tir`, default space, XGBoost cost model, evolutionary search) and PyTorch run "
            "**live**, interleaved per seed and layer.")
    lines = ["# tensortune bench", "", "Produced by:", "", "```", commands_of(doc), "```", "",
             f"Started {doc.get('started', '?')}, finished {doc.get('finished', 'not finished')}. "
             f"Seeds {cfg['seeds']}, budgets {budgets} measurements. Our recipes run on **replay** of the "
             f"ground-truth tables (every config of the reduced space {where}); their "
             "wall time is the tuner's real time plus each replayed measurement's recorded cost. "
             f"{live} Ranges are [min-max] over seeds.", ""]
    if gpu:
        m, smi = meta0["machine"], meta0["machine"].get("smi", {})
        clocks = "; ".join(f"{x}: SM {t['meta']['machine'].get('smi_before', {}).get('clocks.sm', '?')} before its "
                           f"kernels, {t['meta']['machine'].get('smi_after', {}).get('clocks.sm', '?')} after"
                           for x, t in doc["tables"].items())
        lines += [f"GPU tables: {m['gpu']} (compute {m.get('capability')}, {m.get('multiprocessors')} SMs), driver "
                  f"{smi.get('driver_version', '?')}, CUDA {m.get('cuda')}, cuDNN {m.get('cudnn')}; max SM clock "
                  f"{smi.get('clocks.max.sm', '?')}; read by nvidia-smi per layer: {clocks}. Kernels "
                  f"built on {meta0.get('built_on', {}).get('cpu', '?')} with nvcc "
                  f"{meta0.get('built_on', {}).get('nvcc', '?')}. Timing: median of {meta0['timing']['repeat']} "
                  f"repeats of at least {meta0['timing']['min_repeat_ms']} ms, CUDA events. Nothing runs live: "
                  f"the library column is cuDNN's time measured in the tables' GPU session, and MetaSchedule "
                  f"does not run.", ""]
    elif meta0:
        m = meta0["machine"]
        lines += [f"Machine: {m.get('cpu')}, {m.get('cores')} cores, {m.get('memory_gib')} GiB, {m.get('os')}, "
                  f"TVM {m.get('tvm')}. Timing: median of {meta0['timing']['repeat']} repeats of at least "
                  f"{meta0['timing']['min_repeat_ms']} ms.", ""]
    ref = []
    for layer in layers:
        t = doc["tables"][layer]
        drift = [x["gflops"] for x in doc["drift"] if x["layer"] == layer]
        pt = [x["gflops"] for x in doc["pytorch"] if x["layer"] == layer]
        ref.append([layer, t["meta"]["workload"], str(t["configs"]), str(t["within_95"]),
                    f"{t['optimum_gflops']:.1f}", fmt_range(drift), fmt_range(pt),
                    t["meta"].get("finished", "?")[:10]])
    lines += ["## Reference", "", table(["layer", "workload", "configs", "configs within 95%", "table optimum GFLOP/s",
                                          "optimum re-measured now", f"{lib} GFLOP/s", "table date"], ref), ""]
    lines += ["## Compass", "",
              "Best GFLOP/s relative to MetaSchedule at equal measurements (median over layers of the per-layer "
              "median), and measurements and wall time to 95% of the optimum relative to autotvm (median ratio over "
              "layer/seed pairs where both reach it; below 1 is better).", "",
              table(["recipe"] + [f"vs MetaSchedule @{b}" for b in budgets]
                    + ["trials to 95% vs autotvm", "wall to 95% vs autotvm"],
                     compass_rows(doc, budgets)), ""]
    head = ["tuner", "mode", "best GFLOP/s", "% of optimum", "measurements to 95%", "wall to 95%", "invalid",
            "tuner overhead"]
    for layer in layers:
        lines += [f"## {layer}", "", f"![{layer}]({layer}.png)", ""]
        for b in budgets:
            lines += [f"**{b} measurements**", "", table(head, main_rows(doc, layer, b)), ""]
        plot_layer(doc, layer, out / f"{layer}.png")
    notes = [t for t in doc["traces"] if t.get("note") and t["tuner"] != "metaschedule"]
    if notes:
        lines += ["## Notes", ""] + [f"- {t['tuner']} {t['layer']} seed {t['seed']}: {t['note']}" for t in notes] + [""]
    path = out / "report.md"
    path.write_text("\n".join(lines))
    return path
