"""Exhaustive search of the VTA spaces: the true optimum every tuner is compared against.

Every configuration that passes the space's static constraints is evaluated with the vectorised model
(millions per second). For the whole-model co-design space the layers' schedules are independent once
the design is fixed, so the optimum is, over all designs within budget, the sum over layers of each
layer's best schedule on that design; that is exact and needs designs x schedules evaluations, not
their product over layers.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.accel.vta import HW_KNOBS, SW_KNOBS, ConvShape, evaluate
from tensortune.core.values import Task
from tensortune.templates import get_template


@dataclass
class Optimum:
    cycles: float
    seconds: float
    gflops: float
    values: dict[str, Any]
    n_configs: int  # configurations passing the static constraints
    n_runnable: int  # of those, how many the accelerator can run


def _grid(options: list[tuple[Any, ...]]) -> np.ndarray:
    return np.array(list(itertools.product(*options)), dtype=np.int64)


def _sw_grid(space: Any, prefix: str) -> tuple[list[str], np.ndarray]:
    names = [prefix + k for k in SW_KNOBS]
    return names, _grid([space.knob(n).options for n in names])


def _best_schedules(layer: ConvShape, hw: dict[str, np.ndarray], sw: np.ndarray
                    ) -> tuple[np.ndarray, np.ndarray, int, int]:
    """For each design (rows of ``hw``), the min cycles over schedules ``sw`` and its index; plus how many
    pairs pass the structural rule and how many of those run."""
    from tensortune.accel.vta import Violation

    n_hw = len(next(iter(hw.values())))
    best = np.full(n_hw, np.inf)
    arg = np.zeros(n_hw, dtype=np.int64)
    runnable = static = 0
    chunk = max(1, 2_000_000 // max(len(sw), 1))
    for a in range(0, n_hw, chunk):
        h = {k: v[a:a + chunk, None] for k, v in hw.items()}
        p = {**h, **{k: sw[None, :, j] for j, k in enumerate(SW_KNOBS)}}
        res = evaluate(layer, p)
        cyc = res["cycles"]
        static += int((res["violation"] != Violation.STRUCTURE).sum())
        runnable += int(np.isfinite(cyc).sum())
        best[a:a + chunk] = cyc.min(axis=1)
        arg[a:a + chunk] = cyc.argmin(axis=1)
    return best, arg, static, runnable


def exhaustive_optimum(task: Task) -> Optimum:
    """The best configuration of a vta-sim task's whole space."""
    tmpl = get_template(task.template)
    space = task.space
    hw_names = [k for k in HW_KNOBS if k in space.names]
    from tensortune.templates.vta_conv2d import target_hardware

    base = target_hardware(task.target)
    if hw_names:
        hw_rows = _grid([space.knob(k).options for k in hw_names])
        hw = {k: hw_rows[:, j] for j, k in enumerate(hw_names)}
        ok = np.ones(len(hw_rows), dtype=bool)
        for c in space.constraints:  # budgets depend on the design only
            if c.budget:
                ok &= np.asarray(c.vectorized({k: v.astype(np.float64) for k, v in hw.items()}), dtype=bool)  # type: ignore[misc]
        hw = {k: v[ok] for k, v in hw.items()}
    else:
        hw = {k: np.array([v]) for k, v in base.knob_values().items()}
    _, layers = tmpl.decode(task.workload, {n: space.knob(n).options[0] for n in space.names}, task.target)  # type: ignore[attr-defined]
    n_hw = len(next(iter(hw.values())))
    full_hw = {k: hw.get(k, np.full(n_hw, v)) for k, v in base.knob_values().items()}
    total = np.zeros(n_hw)
    picks = []
    n_configs = 0
    n_runnable = 0
    multi = task.template.startswith("model_")
    for i, (layer, count, _) in enumerate(layers, 1):
        names, sw = _sw_grid(space, f"L{i}." if multi else "")
        # the static structure rule (tiles divide the design's blocked loops) per design is inside evaluate
        best, arg, static, runnable = _best_schedules(layer, full_hw, sw)
        n_configs += static
        n_runnable += runnable
        total += count * best
        picks.append((names, sw, arg))
    j = int(np.argmin(total))
    values: dict[str, Any] = {k: int(full_hw[k][j]) for k in hw_names}
    for names, sw, arg in picks:
        values.update({n: int(v) for n, v in zip(names, sw[arg[j]], strict=True)})
    seconds = float(total[j]) / (base.freq_mhz * 1e6)
    return Optimum(float(total[j]), seconds, task.flops / seconds / 1e9 if seconds > 0 else 0.0, values,
                   n_configs, n_runnable)
