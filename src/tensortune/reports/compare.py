"""Side-by-side comparison of tuners: a table and a PNG of best GFLOP/s against measurements."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from tensortune.core.stats import median, trials_to_reach
from tensortune.tuners.loop import TuneSummary


@dataclass
class TunerStats:
    tuner: str
    best_gflops: list[float]
    trials_to_95: list[int | None]
    wall_seconds: list[float]
    seconds_per_measurement: list[float]
    search_share: list[float]
    errors: list[int]
    steps_per_round: list[int]
    configs_per_round: list[int]


def summarise(runs: dict[str, list[TuneSummary]]) -> tuple[list[TunerStats], float]:
    """Per-tuner statistics; the 95% target is 95% of the best trial value any run reached."""
    overall = max((max(s.curve, default=0.0) for ss in runs.values() for s in ss), default=0.0)
    out = []
    for tuner, ss in runs.items():
        out.append(TunerStats(
            tuner=tuner,
            best_gflops=[s.best_gflops for s in ss],
            trials_to_95=[trials_to_reach(s.curve, 0.95 * overall) for s in ss],
            wall_seconds=[s.wall_seconds for s in ss],
            seconds_per_measurement=[s.wall_seconds / max(1, s.trials - s.resumed) for s in ss],
            search_share=[s.search_seconds / s.wall_seconds if s.wall_seconds else 0.0 for s in ss],
            errors=[s.errors for s in ss],
            steps_per_round=[x for s in ss for x in s.search_steps],
            configs_per_round=[x for s in ss for x in s.plan_lengths]))
    return out, overall


def table_rows(stats: list[TunerStats]) -> list[list[str]]:
    rows = []
    for st in stats:
        reached = [t for t in st.trials_to_95 if t is not None]
        t95 = f"{median([float(t) for t in reached]):.0f} ({len(reached)}/{len(st.trials_to_95)} seeds)" if reached else "never"
        rows.append([st.tuner,
                     f"{median(st.best_gflops):.1f} [{min(st.best_gflops):.1f}-{max(st.best_gflops):.1f}]",
                     t95, f"{median(st.wall_seconds):.0f}", f"{median(st.seconds_per_measurement):.2f}",
                     f"{100 * median(st.search_share):.1f}%", f"{median([float(e) for e in st.errors]):.0f}",
                     _dist(st.steps_per_round), _dist(st.configs_per_round)])
    return rows


def _dist(xs: list[int]) -> str:
    return f"{median([float(x) for x in xs]):.0f} [{min(xs)}-{max(xs)}]" if xs else "-"


HEADERS = ["tuner", "best GFLOP/s median [min-max]", "trials to 95% of best", "wall s", "s / measurement",
           "search+training share", "errors", "search steps / round", "configs measured / round"]


def plot(runs: dict[str, list[TuneSummary]], path: Path, title: str, baseline: float | None = None) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for tuner, ss in runs.items():
        n = min(len(s.curve) for s in ss)
        if n == 0:
            continue
        curves = np.array([s.curve[:n] for s in ss])
        x = np.arange(1, n + 1)
        line, = ax.plot(x, np.median(curves, axis=0), label=f"{tuner} (median of {len(ss)})")
        ax.fill_between(x, curves.min(axis=0), curves.max(axis=0), alpha=0.2, color=line.get_color())
    if baseline:
        ax.axhline(baseline, color="k", linestyle="--", linewidth=1, label=f"PyTorch oneDNN {baseline:.0f}")
    ax.set_xlabel("measurements")
    ax.set_ylabel("best GFLOP/s so far")
    ax.set_title(title)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def write_json(runs: dict[str, list[TuneSummary]], path: Path, extra: dict) -> None:
    data = {"runs": {t: [{"seed": s.seed, "run_id": s.run_id, "best_gflops": s.best_gflops, "trials": s.trials,
                          "wall_seconds": s.wall_seconds, "search_seconds": s.search_seconds,
                          "measure_seconds": s.measure_seconds, "errors": s.errors, "curve": s.curve,
                          "search_steps": s.search_steps, "model_queries": s.model_queries,
                          "plan_lengths": s.plan_lengths, "batch_sizes": s.batch_sizes} for s in ss]
                     for t, ss in runs.items()}, **extra}
    path.write_text(json.dumps(data, indent=1))
