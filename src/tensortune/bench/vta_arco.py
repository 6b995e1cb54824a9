"""``tensortune bench vta-arco``: ARCO vs Chameleon vs AutoTVM on the VTA-like accelerator model, against
the exhaustive optimum, plus the whole-model co-design and the simulator's speed.

Per unique conv layer of the chosen models: autotvm and chameleon tune the software knobs on VTA's default
design (as in the ARCO paper); arco tunes hardware and software knobs of the layer within the default
design's area and memory. All get the same measurement budget. Then, per model, ``arco`` (flat, the joint
space) and ``arco-hier`` (design outer, layers inner) tune one design for all layers, warm-started from the
default design with the schedules autotvm found (first seed), with their own budget; the result is
compared with the best software-only model time. Every run is a ``RunTrace`` in ``results.json`` (a rerun
resumes); ``report.md`` and two plots are written beside it.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.bench.report import fmt_reach, plot_best_curves, pyplot, save_figure, table, write_markdown
from tensortune.bench.results import ResultsFile, commands_of
from tensortune.bench.traces import RunTrace, run_recipe
from tensortune.bench.vta_oracle import exhaustive_optimum
from tensortune.core.stats import median

VTA = {"kind": "vta-sim"}
LAYER_TUNERS = ("autotvm", "chameleon", "arco")
MODEL_TUNERS = ("arco", "arco-hier")  # flat ARCO over the joint space; hierarchical (design outer, layers inner)


@dataclass
class VtaArcoConfig:
    trials: int = 128  # per layer, tuner and seed
    model_trials: int = 256  # per model, tuner and seed
    plan_size: int = 32
    seeds: list[int] = field(default_factory=lambda: [0, 1, 2])
    models: list[str] = field(default_factory=lambda: ["alexnet", "vgg16", "resnet18"])

    def __post_init__(self) -> None:
        from tensortune.workloads import MODELS

        if self.trials < 1 or self.model_trials < 1 or self.plan_size < 1:
            raise ValueError("trials, model trials and plan size must be positive")
        if not self.seeds or not self.models:
            raise ValueError("vta-arco needs at least one seed and one model")
        bad = [m for m in self.models if m not in MODELS]
        if bad:
            raise ValueError(f"unknown models {bad}; known: {', '.join(MODELS)}")


def simulator_speed(n: int = 1_000_000) -> dict[str, float]:
    """Evaluations per second: vectorised, through the measurer in batches, and one config per call."""
    from tensortune.accel.vta import ConvShape, VtaHardware, evaluate
    from tensortune.core.values import MeasureInput
    from tensortune.measure.vta_measurer import VtaSimMeasurer
    from tensortune.templates import make_task
    from tensortune.workloads import MODELS

    layer = ConvShape.of(MODELS["resnet18"][5])
    rng = np.random.default_rng(0)
    hw = {k: np.full(n, v) for k, v in VtaHardware().knob_values().items()}
    sw = {"tile_b": np.ones(n, int), "tile_h": rng.choice([1, 2, 7, 14], n), "tile_w": rng.choice([1, 2, 7, 14], n),
          "tile_ci": rng.choice([1, 2, 4, 8], n), "tile_co": rng.choice([1, 2, 4, 8, 16], n),
          "h_nthread": rng.choice([1, 2], n), "oc_nthread": rng.choice([1, 2], n)}
    t0 = time.perf_counter()
    evaluate(layer, {**hw, **sw})
    vec = n / (time.perf_counter() - t0)
    task = make_task(MODELS["resnet18"][5], "conv2d_nchw.vta-sim", VTA)
    cfgs = task.space.sample(task.space.size, rng)
    m = VtaSimMeasurer()
    t0 = time.perf_counter()
    reps = 20
    for _ in range(reps):
        m.measure([MeasureInput(task, c) for c in cfgs])
    batched = reps * len(cfgs) / (time.perf_counter() - t0)
    single_n = min(500, len(cfgs))
    t0 = time.perf_counter()
    for c in cfgs[:single_n]:
        m.measure([MeasureInput(task, c)])
    single = single_n / (time.perf_counter() - t0)
    return {"vectorised_per_s": vec, "measurer_batch_per_s": batched, "measurer_single_per_s": single}


def run_vta_arco(cfg: VtaArcoConfig, out: Path, command: str = "", progress: bool = True) -> ResultsFile:
    from rich.console import Console

    from tensortune.accel.vta import VtaHardware
    from tensortune.core.values import MeasureInput
    from tensortune.measure.vta_measurer import VtaSimMeasurer
    from tensortune.templates import make_task
    from tensortune.workloads import MODELS, ModelConvs

    console = Console(stderr=True, quiet=not progress)
    res = ResultsFile(out / "results.json", asdict(cfg), command, sections=("speed", "layers", "models"))
    t_start = time.perf_counter()
    if not res.doc["speed"]:
        sp = simulator_speed()
        res.add("speed", sp)
        console.log(f"simulator: {sp['vectorised_per_s']:.3g} evaluations/s vectorised, {sp['measurer_batch_per_s']:.3g}/s "
                    f"through the measurer in batches, {sp['measurer_single_per_s']:.3g}/s one config per call")
    opts = {"plan_size": cfg.plan_size}
    for model in cfg.models:
        for li, wl in enumerate(MODELS[model], 1):
            name = f"{model}:{li}"
            tasks = {"sw": make_task(wl, "conv2d_nchw.vta-sim", VTA, name),
                     "co": make_task(wl, "conv2d_codesign.vta-sim", VTA, name)}
            if res.find("layers", layer=name) is None:
                sw_opt, co_opt = exhaustive_optimum(tasks["sw"]), exhaustive_optimum(tasks["co"])
                res.add("layers", {"layer": name, "shape": wl.describe(), "sw_space": sw_opt.n_configs,
                                   "sw_runnable": sw_opt.n_runnable, "sw_opt_gflops": sw_opt.gflops,
                                   "co_space": co_opt.n_configs, "co_runnable": co_opt.n_runnable,
                                   "co_opt_gflops": co_opt.gflops})
            for tuner in LAYER_TUNERS:
                task = tasks["co" if tuner == "arco" else "sw"]
                for seed in cfg.seeds:
                    if res.has_trace(tuner, name, seed):
                        continue
                    trace, s, _ = run_recipe(tuner, task, VtaSimMeasurer(), seed, cfg.trials, layer=name,
                                             mode="simulated", options=opts)
                    trace.extra["best_config"] = s.best_config
                    res.add_trace(trace)
            row = res.find("layers", layer=name)
            console.log(f"{name:12s} opt sw {row['sw_opt_gflops']:6.1f} co {row['co_opt_gflops']:6.1f} | " + " | ".join(
                f"{t} {median([res.trace(t, name, s).best() for s in cfg.seeds]):6.1f}" for t in LAYER_TUNERS)
                + f" | {time.perf_counter() - t_start:.0f} s")
        # whole-model co-design, warm-started from the default design + autotvm's schedules (first seed)
        mname = f"{model}:all"
        mt = make_task(ModelConvs.of(model), "model_codesign.vta-sim", VTA, mname)
        init_vals = dict(VtaHardware().knob_values())
        fallback = []  # layers where autotvm measured nothing runnable: their software-optimal schedule
        for li, wl in enumerate(MODELS[model], 1):
            best = res.trace("autotvm", f"{model}:{li}", cfg.seeds[0]).extra.get("best_config")
            if best is None:
                fallback.append(li)
                best = exhaustive_optimum(make_task(wl, "conv2d_nchw.vta-sim", VTA)).values
            init_vals.update({f"L{li}.{k}": v for k, v in best.items()})
        init = mt.space.from_json(init_vals)
        if res.find("models", model=model) is None:
            m_opt = exhaustive_optimum(mt)
            sw_model = VtaSimMeasurer().measure([MeasureInput(mt, init)])[0]
            sw_opt_total = sum(c * exhaustive_optimum(make_task(wl, "conv2d_nchw.vta-sim", VTA)).seconds
                               for wl, c in zip(MODELS[model], mt.workload.counts, strict=True))
            res.add("models", {"model": model, "flops": mt.flops, "autotvm_sw_ms": 1e3 * sw_model.cost,
                               "sw_opt_ms": 1e3 * sw_opt_total, "codesign_opt_ms": 1e3 * m_opt.seconds,
                               "codesign_opt_hw": {k: v for k, v in m_opt.values.items() if "." not in k},
                               "autotvm_measurements": cfg.trials * len(MODELS[model]), "warm_start_fallback": fallback})
        for seed in cfg.seeds:  # interleaved per seed
            for tuner in MODEL_TUNERS:
                if res.has_trace(tuner, mname, seed):
                    continue
                trace, s, _ = run_recipe(tuner, mt, VtaSimMeasurer(), seed, cfg.model_trials, layer=mname,
                                         mode="simulated", options=opts, initial_configs=[init])
                trace.extra["best_config"] = s.best_config
                res.add_trace(trace)
        mrow = res.find("models", model=model)
        console.log(f"{model}: software-only (autotvm) {mrow['autotvm_sw_ms']:.2f} ms, software optimum "
                    f"{mrow['sw_opt_ms']:.2f} ms, " + ", ".join(
                        f"{t} {median([model_ms(mrow, res.trace(t, mname, s)) for s in cfg.seeds]):.2f} ms"
                        for t in MODEL_TUNERS) + f", co-design optimum {mrow['codesign_opt_ms']:.2f} ms")
    res.doc.setdefault("seconds", 0.0)
    res.doc["seconds"] += time.perf_counter() - t_start
    res.finish()
    return res


def model_ms(mrow: dict[str, Any], trace: RunTrace | None, curve: bool = False) -> Any:
    """A model run's best time (ms), or its best-so-far curve in ms."""
    assert trace is not None
    ms = _to_ms(mrow, trace.curve(), np.inf)
    return ms if curve else float(ms[-1]) if len(ms) else float("inf")


def _to_ms(mrow: dict[str, Any], gflops: np.ndarray, invalid: float) -> np.ndarray:
    """Best GFLOP/s of a model run as model milliseconds (``invalid`` where nothing ran yet)."""
    return np.where(gflops > 0, 1e3 * mrow["flops"] / np.maximum(gflops, 1e-30) / 1e9, invalid)


def write_vta_arco_report(doc: dict[str, Any], out: Path) -> Path:
    cfg = doc["config"]
    traces = [RunTrace.from_json(t) for t in doc["traces"]]
    runs: dict[tuple[str, str], list[RunTrace]] = {}
    for t in traces:
        runs.setdefault((t.layer, t.tuner), []).append(t)
    sp = doc["speed"][0]
    seeds = ",".join(str(s) for s in cfg["seeds"])
    lines = ["# ARCO vs Chameleon vs AutoTVM on the VTA-like accelerator model", "", "Produced by:", "", "```",
             commands_of(doc), "```", "",
             f"{doc.get('seconds', 0) / 60:.1f} min. {cfg['trials']} measurements per layer and seed, plan size "
             f"{cfg['plan_size']}, seeds {seeds}. autotvm and chameleon tune software knobs on VTA's default design "
             "(1x16x16, 64-bit bus); arco tunes hardware and software within the default design's area and memory. "
             "Best throughput is the median over seeds; % is of the exhaustive optimum of the tuner's own space "
             "(sw: default design; co: co-design); to 95% counts measurements to reach 95% of that optimum "
             "(median over seeds that reached it, and how many did).", "",
             f"Simulator speed: {sp['vectorised_per_s']:.3g} evaluations/s vectorised, {sp['measurer_batch_per_s']:.3g}/s "
             f"through the measurer in batches of a whole space, {sp['measurer_single_per_s']:.3g}/s one config per call.",
             ""]
    head = (["layer", "sw opt GOP/s", "co opt GOP/s"] + [f"{t} GOP/s (% opt)" for t in LAYER_TUNERS]
            + [f"{t} to 95%" for t in LAYER_TUNERS] + [f"{t} invalid" for t in LAYER_TUNERS])
    agg: dict[str, dict[str, list[float]]] = {t: {"pct": [], "inv": [], "gain": [], "wall": [], "pct_sw": []}
                                              for t in LAYER_TUNERS}
    rows, pct_sw_by_layer = [], []
    for r in doc["layers"]:
        own = {t: r["co_opt_gflops"] if t == "arco" else r["sw_opt_gflops"] for t in LAYER_TUNERS}
        rs = {t: runs.get((r["layer"], t), []) for t in LAYER_TUNERS}
        if not all(rs.values()):
            continue
        best = {t: median([x.best() for x in rs[t]]) for t in LAYER_TUNERS}
        cells = [r["layer"], f"{r['sw_opt_gflops']:.1f}", f"{r['co_opt_gflops']:.1f}"]
        cells += [f"{best[t]:.1f} ({median([100 * x.best() / own[t] for x in rs[t]]):.0f}%)" for t in LAYER_TUNERS]
        cells += [fmt_reach([x.trials_to(0.95 * own[t]) for x in rs[t]], len(rs[t]))
                  for t in LAYER_TUNERS]
        cells += [f"{100 * median([x.invalid_share() for x in rs[t]]):.0f}%" for t in LAYER_TUNERS]
        rows.append(cells)
        for t in LAYER_TUNERS:
            agg[t]["pct"].append(median([100 * x.best() / own[t] for x in rs[t]]))
            agg[t]["pct_sw"].append(median([100 * x.best() / r["sw_opt_gflops"] for x in rs[t]]))
            agg[t]["inv"].append(median([x.invalid_share() for x in rs[t]]))
            agg[t]["wall"].append(median([x.wall[-1] if x.wall else 0.0 for x in rs[t]]))
            if best["autotvm"] > 0:  # a layer where autotvm found nothing runnable has no gain figure
                agg[t]["gain"].append(best[t] / best["autotvm"])
        pct_sw_by_layer.append((r, {t: agg[t]["pct_sw"][-1] for t in LAYER_TUNERS}))
    lines += [table(head, rows), ""]
    if rows:
        lines += ["Summary over layers (median of the per-layer medians; throughput gain is best GOP/s over autotvm's "
                  "on the same layer):", "",
                  table(["tuner", "% of own optimum", "% of software optimum", "invalid share", "throughput vs autotvm",
                         "wall s per run"],
                        [[t, f"{median(agg[t]['pct']):.1f}%", f"{median(agg[t]['pct_sw']):.1f}%",
                          f"{100 * median(agg[t]['inv']):.0f}%",
                          f"{median(agg[t]['gain']):.2f}x (max {max(agg[t]['gain']):.2f}x)" if agg[t]["gain"] else "-",
                          f"{median(agg[t]['wall']):.1f}"] for t in LAYER_TUNERS]), ""]
    lines += ["## One design for the whole model", "",
              f"`model_codesign.vta-sim`, {cfg['model_trials']} measurements, seeds {seeds}, both tuners warm-started "
              "from the default design running the schedules autotvm found (first seed). Model time = sum over conv "
              "layers (weighted by how often each occurs). `arco` walks the joint space (hardware + every layer's "
              "knobs); `arco-hier` walks designs with ARCO's hardware agent and tunes the layers inside each design "
              "from per-layer models (`strategies/hierarchical.py`). 'beats sw opt' = measurements until the model is "
              "faster than the best software-only result possible on the default design; 'to 95%' = until within 5% "
              "of the co-design optimum (median over seeds that got there, and how many did).", ""]
    mrows = []
    for m in doc["models"]:
        for t in MODEL_TUNERS:
            rs = runs.get((f"{m['model']}:all", t), [])
            if not rs:
                continue
            ms = [model_ms(m, x) for x in rs]
            curves = [model_ms(m, x, curve=True) for x in rs]
            # faster by more than 0.1%: the warm start already runs the software optimum on some models
            beat = [next((i + 1 for i, v in enumerate(c) if v < m["sw_opt_ms"] * (1 - 1e-3)), None) for c in curves]
            near = [next((i + 1 for i, v in enumerate(c) if v <= m["codesign_opt_ms"] / 0.95), None) for c in curves]
            mrows.append([m["model"], t, f"{m['sw_opt_ms']:.2f}", f"{median(ms):.2f} [{min(ms):.2f}-{max(ms):.2f}]",
                          f"{100 * m['codesign_opt_ms'] / median(ms):.1f}%", f"{m['sw_opt_ms'] / median(ms):.2f}x",
                          fmt_reach(beat, len(ms)), fmt_reach(near, len(ms)),
                          f"{100 * median([x.invalid_share() for x in rs]):.0f}%",
                          f"{median([x.wall[-1] if x.wall else 0.0 for x in rs]):.1f}"])
    lines += [table(["model", "tuner", "sw optimum ms", "co-design ms (median [min-max])", "% of co-design optimum",
                     "vs sw optimum", "beats sw opt after", "to 95%", "invalid", "wall s"], mrows), ""]
    for m in doc["models"]:
        if m.get("warm_start_fallback"):
            lines += [f"{m['model']}: autotvm measured no runnable schedule for layers {m['warm_start_fallback']} "
                      "(first seed); the warm start used their software-optimal schedules instead.", ""]
    lines += ["Co-design optima: " + "; ".join(
        f"{m['model']} {m['codesign_opt_ms']:.2f} ms with " + " ".join(f"{k}={v}" for k, v in m["codesign_opt_hw"].items())
        for m in doc["models"]), ""]
    plt = pyplot()
    if doc["models"]:
        fig, axes = plt.subplots(1, len(doc["models"]), figsize=(4.2 * len(doc["models"]), 3.6), squeeze=False)
        for ax, m in zip(axes[0], doc["models"], strict=True):
            for t, color in zip(MODEL_TUNERS, ("tab:green", "tab:purple"), strict=True):
                plot_best_curves(ax, runs.get((f"{m['model']}:all", t), []), t, color=color,
                                 transform=lambda g, m=m: _to_ms(m, g, np.nan))
            ax.axhline(m["sw_opt_ms"], color="grey", ls="--", lw=0.8, label="software-only optimum")
            ax.axhline(m["codesign_opt_ms"], color="black", ls=":", lw=0.8, label="co-design optimum")
            ax.set_title(m["model"])
            ax.set_xlabel("measurements")
            ax.set_ylabel("best model time (ms)")
            ax.set_yscale("log")
        axes[0][0].legend(fontsize=7)
        save_figure(fig, out / "model_codesign.png", dpi=120)
        lines += ["![whole-model co-design: best time against measurements, median and range over seeds]"
                  "(model_codesign.png)"]
    if pct_sw_by_layer:
        fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(pct_sw_by_layer)), 4.5))
        x = np.arange(len(pct_sw_by_layer))
        for i, t in enumerate(LAYER_TUNERS):
            ax.bar(x + (i - 1) * 0.27, [p[t] for _, p in pct_sw_by_layer], 0.27, label=t)
        ax.plot(x, [100 * r["co_opt_gflops"] / r["sw_opt_gflops"] for r, _ in pct_sw_by_layer], "k_", markersize=12,
                label="co-design optimum")
        ax.axhline(100, color="grey", lw=0.8)
        ax.set_xticks(x, [r["layer"] for r, _ in pct_sw_by_layer], rotation=70, fontsize=7)
        ax.set_ylabel("best throughput, % of the software-only optimum")
        ax.set_yscale("log")
        ax.legend(fontsize=8)
        ax.set_title(f"VTA model, {cfg['trials']} measurements, median of {len(cfg['seeds'])} seeds")
        save_figure(fig, out / "throughput.png", dpi=120)
        lines += ["", "![throughput per layer](throughput.png)", ""]
    return write_markdown(out, lines)
