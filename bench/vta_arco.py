"""Issue 4 benchmark: ARCO vs Chameleon vs AutoTVM on the VTA-like accelerator model, against the
exhaustive optimum, plus the whole-model co-design and the simulator's speed.

    .venv/bin/python bench/vta_arco.py --trials 128 --plan-size 32 --seeds 0,1,2 --out results/vta-arco

Per unique conv layer of AlexNet, VGG-16 and ResNet-18: autotvm and chameleon tune the software knobs on
VTA's default design (as in the ARCO paper); arco tunes hardware and software knobs of the layer within
the default design's area and memory. All get the same measurement budget. Then, per model, arco tunes
one design for all layers (model_codesign), warm-started from the default design with the schedules
autotvm found (seed 0), with its own measurement budget; the result is compared with the best
software-only model time. Writes report.md, results.json and a PNG plot to --out.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from tensortune.accel.vta import ConvShape, VtaHardware, evaluate
from tensortune.bench.vta_oracle import exhaustive_optimum
from tensortune.core.stats import median
from tensortune.core.values import MeasureInput, Task
from tensortune.measure.vta_measurer import VtaSimMeasurer
from tensortune.reports.compare import trials_to_reach
from tensortune.storage import SQLiteStorage
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create
from tensortune.workloads import MODELS, ModelConvs

VTA = {"kind": "vta-sim"}
MODEL_TUNERS = ("arco", "arco-hier")  # flat ARCO over the joint space; hierarchical (design outer, layers inner)


def speed() -> dict[str, float]:
    layer = ConvShape.of(MODELS["resnet18"][5])
    rng = np.random.default_rng(0)
    n = 1_000_000
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
    t0 = time.perf_counter()
    for c in cfgs[:500]:
        m.measure([MeasureInput(task, c)])
    single = 500 / (time.perf_counter() - t0)
    return {"vectorised_per_s": vec, "measurer_batch_per_s": batched, "measurer_single_per_s": single}


def run(task: Task, tuner: str, seed: int, trials: int, plan: int, db: SQLiteStorage, initial=None):  # type: ignore[no-untyped-def]
    strat = create(tuner, task.space, seed, plan_size=plan, task=task)
    return Tuner(task, strat, VtaSimMeasurer(), db, Budget(trials=trials), tuner_name=tuner, seed=seed,
                 batch_size=16, remeasure_best=False, initial_configs=initial).run()


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trials", type=int, default=128)
    ap.add_argument("--model-trials", type=int, default=256)
    ap.add_argument("--plan-size", type=int, default=32)
    ap.add_argument("--seeds", default="0,1,2")
    ap.add_argument("--models", default="alexnet,vgg16,resnet18")
    ap.add_argument("--out", default="results/vta-arco")
    a = ap.parse_args()
    seeds = [int(s) for s in a.seeds.split(",")]
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    db = SQLiteStorage(str(Path(tempfile.mkdtemp()) / "vta.db"))
    t_start = time.perf_counter()
    sp = speed()
    print(f"simulator: {sp['vectorised_per_s']:.3g} evaluations/s vectorised, {sp['measurer_batch_per_s']:.3g}/s through "
          f"the measurer in batches, {sp['measurer_single_per_s']:.3g}/s one config per call", flush=True)
    rows = []
    model_rows = []
    for model in a.models.split(","):
        sw_best_cfg: dict[int, object] = {}
        for li, wl in enumerate(MODELS[model], 1):
            name = f"{model}:{li}"
            sw_task = make_task(wl, "conv2d_nchw.vta-sim", VTA, name)
            co_task = make_task(wl, "conv2d_codesign.vta-sim", VTA, name)
            sw_opt, co_opt = exhaustive_optimum(sw_task), exhaustive_optimum(co_task)
            row = {"layer": name, "shape": wl.describe(), "sw_space": sw_opt.n_configs,
                   "sw_runnable": sw_opt.n_runnable, "sw_opt_gflops": sw_opt.gflops,
                   "co_space": co_opt.n_configs, "co_runnable": co_opt.n_runnable, "co_opt_gflops": co_opt.gflops,
                   "tuners": {}}
            for tuner, task, opt in (("autotvm", sw_task, sw_opt), ("chameleon", sw_task, sw_opt), ("arco", co_task, co_opt)):
                res = []
                for seed in seeds:
                    s = run(task, tuner, seed, a.trials, a.plan_size, db)
                    res.append({"best_gflops": s.best_gflops, "pct_of_own_opt": 100 * s.best_gflops / opt.gflops,
                                "pct_of_sw_opt": 100 * s.best_gflops / sw_opt.gflops,
                                "to95": trials_to_reach(s.curve, 0.95 * opt.gflops),
                                "invalid_share": s.errors / max(1, s.trials), "wall_s": s.wall_seconds,
                                "measurements": s.trials})
                    if tuner == "autotvm" and seed == seeds[0]:
                        sw_best_cfg[li] = s.best_config
                row["tuners"][tuner] = res
            rows.append(row)
            t = row["tuners"]
            print(f"{name:12s} opt sw {sw_opt.gflops:6.1f} co {co_opt.gflops:6.1f} | " + " | ".join(
                f"{k} {median([r['best_gflops'] for r in t[k]]):6.1f} ({median([r['pct_of_own_opt'] for r in t[k]]):5.1f}%)"
                for k in t) + f" | {time.perf_counter() - t_start:.0f} s", flush=True)
        # whole-model co-design, warm-started from the default design + autotvm's schedules
        mt = make_task(ModelConvs.of(model), "model_codesign.vta-sim", VTA, f"{model}:all")
        m_opt = exhaustive_optimum(mt)
        init_vals = dict(VtaHardware().knob_values())
        for li, cfg in sw_best_cfg.items():
            init_vals.update({f"L{li}.{k}": v for k, v in (cfg or {}).items()})
        init = mt.space.from_json(init_vals)
        sw_model = VtaSimMeasurer().measure([MeasureInput(mt, init)])[0]
        sw_opt_total = sum(c * exhaustive_optimum(make_task(wl, "conv2d_nchw.vta-sim", VTA)).seconds
                           for wl, c in zip(MODELS[model], mt.workload.counts, strict=True))
        mrow = {"model": model, "autotvm_sw_ms": 1e3 * sw_model.cost, "sw_opt_ms": 1e3 * sw_opt_total,
                "codesign_opt_ms": 1e3 * m_opt.seconds, "codesign_opt_hw": {k: v for k, v in m_opt.values.items() if "." not in k},
                "autotvm_measurements": a.trials * len(MODELS[model])}
        for tuner in MODEL_TUNERS:  # interleaved per seed
            mrow[tuner] = []
        for seed in seeds:
            for tuner in MODEL_TUNERS:
                s = run(mt, tuner, seed, a.model_trials, a.plan_size, db, initial=[init])
                # curve: best model time (ms) after each measurement
                curve_ms = [1e3 * mt.flops / (g * 1e9) if g > 0 else float("inf") for g in s.curve]
                beat = next((i + 1 for i, v in enumerate(curve_ms) if v < 1e3 * sw_opt_total), None)
                near = next((i + 1 for i, v in enumerate(curve_ms) if v <= 1e3 * m_opt.seconds / 0.95), None)
                mrow[tuner].append({"model_ms": 1e3 * s.best_cost, "invalid_share": s.errors / max(1, s.trials),
                                    "wall_s": s.wall_seconds, "best_config": s.best_config, "curve_ms": curve_ms,
                                    "to_beat_sw_opt": beat, "to95": near})
        model_rows.append(mrow)
        print(f"{model}: software-only (autotvm) {mrow['autotvm_sw_ms']:.2f} ms, software optimum {mrow['sw_opt_ms']:.2f} ms, "
              + ", ".join(f"{t} {median([r['model_ms'] for r in mrow[t]]):.2f} ms" for t in MODEL_TUNERS)
              + f", co-design optimum {mrow['codesign_opt_ms']:.2f} ms", flush=True)
    total = time.perf_counter() - t_start
    cmd = "python " + " ".join(sys.argv)
    (out / "results.json").write_text(json.dumps({"command": cmd, "speed": sp, "layers": rows, "models": model_rows,
                                                  "seconds": total}, indent=1))
    write_report(out, cmd, sp, rows, model_rows, a, total)
    print(f"report: {out / 'report.md'}")
    return 0


def write_report(out: Path, cmd: str, sp: dict, rows: list, model_rows: list, a, total: float) -> None:  # type: ignore[no-untyped-def]
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    tuners = ["autotvm", "chameleon", "arco"]
    lines = ["# ARCO vs Chameleon vs AutoTVM on the VTA-like accelerator model", "",
             f"Command: `{cmd}` ({total / 60:.1f} min). {a.trials} measurements per layer and seed, plan size "
             f"{a.plan_size}, seeds {a.seeds}. autotvm and chameleon tune software knobs on VTA's default design "
             f"(1x16x16, 64-bit bus); arco tunes hardware and software within the default design's area and memory. "
             f"Best throughput is the median over seeds; % is of the exhaustive optimum of the tuner's own space "
             f"(sw: default design; co: co-design); to 95% counts measurements to reach 95% of that optimum "
             f"(median over seeds that reached it, and how many did).", "",
             f"Simulator speed: {sp['vectorised_per_s']:.3g} evaluations/s vectorised, {sp['measurer_batch_per_s']:.3g}/s "
             f"through the measurer in batches of a whole space, {sp['measurer_single_per_s']:.3g}/s one config per call.", "",
             "| layer | sw opt GOP/s | co opt GOP/s | " + " | ".join(f"{t} GOP/s (% opt)" for t in tuners)
             + " | " + " | ".join(f"{t} to 95%" for t in tuners) + " | " + " | ".join(f"{t} invalid" for t in tuners) + " |",
             "|" + "---|" * (3 + 3 * len(tuners))]
    agg: dict[str, dict[str, list[float]]] = {t: {"pct": [], "inv": [], "gain": [], "wall": [], "pct_sw": []} for t in tuners}
    for r in rows:
        cells = [r["layer"], f"{r['sw_opt_gflops']:.1f}", f"{r['co_opt_gflops']:.1f}"]
        for t in tuners:
            rs = r["tuners"][t]
            cells.append(f"{median([x['best_gflops'] for x in rs]):.1f} ({median([x['pct_of_own_opt'] for x in rs]):.0f}%)")
        for t in tuners:
            hit = [x["to95"] for x in r["tuners"][t] if x["to95"] is not None]
            cells.append(f"{median(hit):.0f} ({len(hit)}/{len(r['tuners'][t])})" if hit else "never")
        for t in tuners:
            cells.append(f"{100 * median([x['invalid_share'] for x in r['tuners'][t]]):.0f}%")
            agg[t]["pct"].append(median([x["pct_of_own_opt"] for x in r["tuners"][t]]))
            agg[t]["pct_sw"].append(median([x["pct_of_sw_opt"] for x in r["tuners"][t]]))
            agg[t]["inv"].append(median([x["invalid_share"] for x in r["tuners"][t]]))
            agg[t]["wall"].append(median([x["wall_s"] for x in r["tuners"][t]]))
            agg[t]["gain"].append(median([x["best_gflops"] for x in r["tuners"][t]])
                                  / median([x["best_gflops"] for x in r["tuners"]["autotvm"]]))
        lines.append("| " + " | ".join(cells) + " |")
    lines += ["", "Summary over layers (median of the per-layer medians; throughput gain is best GOP/s over autotvm's "
              "on the same layer):", "", "| tuner | % of own optimum | % of software optimum | invalid share | "
              "throughput vs autotvm | wall s per run |", "|---|---|---|---|---|---|"]
    for t in tuners:
        g = agg[t]
        lines.append(f"| {t} | {median(g['pct']):.1f}% | {median(g['pct_sw']):.1f}% | {100 * median(g['inv']):.0f}% | "
                     f"{median(g['gain']):.2f}x (max {max(g['gain']):.2f}x) | {median(g['wall']):.1f} |")
    lines += ["", "## One design for the whole model", "",
              f"`model_codesign.vta-sim`, {a.model_trials} measurements, seeds {a.seeds}, both tuners warm-started from "
              "the default design running the schedules autotvm found (seed 0). Model time = sum over conv layers "
              "(weighted by how often each occurs). `arco` walks the joint space (hardware + every layer's knobs); "
              "`arco-hier` walks designs with ARCO's hardware agent and tunes the layers inside each design from "
              "per-layer models (`strategies/hierarchical.py`). 'beats sw opt' = measurements until the model is faster "
              "than the best software-only result possible on the default design; 'to 95%' = until within 5% of the "
              "co-design optimum (median over seeds that got there, and how many did).", "",
              "| model | tuner | sw optimum ms | co-design ms (median [min-max]) | % of co-design optimum | vs sw optimum | "
              "beats sw opt after | to 95% | invalid | wall s |", "|---|---|---|---|---|---|---|---|---|---|"]
    for m in model_rows:
        for t in MODEL_TUNERS:
            ms = [x["model_ms"] for x in m[t]]
            beat = [x["to_beat_sw_opt"] for x in m[t] if x["to_beat_sw_opt"] is not None]
            near = [x["to95"] for x in m[t] if x["to95"] is not None]
            lines.append(f"| {m['model']} | {t} | {m['sw_opt_ms']:.2f} | {median(ms):.2f} [{min(ms):.2f}-{max(ms):.2f}] | "
                         f"{100 * m['codesign_opt_ms'] / median(ms):.1f}% | {m['sw_opt_ms'] / median(ms):.2f}x | "
                         + (f"{median(beat):.0f} ({len(beat)}/{len(ms)})" if beat else "never") + " | "
                         + (f"{median(near):.0f} ({len(near)}/{len(ms)})" if near else "never") + " | "
                         f"{100 * median([x['invalid_share'] for x in m[t]]):.0f}% | {median([x['wall_s'] for x in m[t]]):.1f} |")
    lines += ["", "Co-design optima: " + "; ".join(
        f"{m['model']} {m['codesign_opt_ms']:.2f} ms with " + " ".join(f"{k}={v}" for k, v in m["codesign_opt_hw"].items())
        for m in model_rows), ""]
    fig, axes = plt.subplots(1, len(model_rows), figsize=(4.2 * len(model_rows), 3.6), squeeze=False)
    for ax, m in zip(axes[0], model_rows, strict=True):
        for t, color in zip(MODEL_TUNERS, ("tab:green", "tab:purple"), strict=True):
            curves = np.array([x["curve_ms"] for x in m[t]])
            xs = np.arange(1, curves.shape[1] + 1)
            ax.plot(xs, np.median(curves, axis=0), color=color, label=t)
            ax.fill_between(xs, curves.min(axis=0), curves.max(axis=0), color=color, alpha=0.2)
        ax.axhline(m["sw_opt_ms"], color="grey", ls="--", lw=0.8, label="software-only optimum")
        ax.axhline(m["codesign_opt_ms"], color="black", ls=":", lw=0.8, label="co-design optimum")
        ax.set_title(m["model"])
        ax.set_xlabel("measurements")
        ax.set_ylabel("best model time (ms)")
        ax.set_yscale("log")
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(out / "model_codesign.png", dpi=120)
    plt.close(fig)
    lines += ["![whole-model co-design: best time against measurements, median and range over seeds](model_codesign.png)"]
    fig, ax = plt.subplots(figsize=(max(8, 0.45 * len(rows)), 4.5))
    x = np.arange(len(rows))
    for i, t in enumerate(tuners):
        ax.bar(x + (i - 1) * 0.27, [median([v["pct_of_sw_opt"] for v in r["tuners"][t]]) for r in rows], 0.27, label=t)
    ax.plot(x, [100 * r["co_opt_gflops"] / r["sw_opt_gflops"] for r in rows], "k_", markersize=12, label="co-design optimum")
    ax.axhline(100, color="grey", lw=0.8)
    ax.set_xticks(x, [r["layer"] for r in rows], rotation=70, fontsize=7)
    ax.set_ylabel("best throughput, % of the software-only optimum")
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.set_title(f"VTA model, {a.trials} measurements, median of {len(a.seeds.split(','))} seeds")
    fig.tight_layout()
    fig.savefig(out / "throughput.png", dpi=120)
    lines += ["", "![throughput per layer](throughput.png)", ""]
    (out / "report.md").write_text("\n".join(lines))


if __name__ == "__main__":
    raise SystemExit(main())
