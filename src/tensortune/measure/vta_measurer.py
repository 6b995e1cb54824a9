"""The ``vta-sim`` measurer: cycle counts from the analytical VTA model instead of hardware runs.

A configuration that cannot run reports ``COMPILE_DEVICE`` (TVM's VTA flow raised these at compile time:
"Allocation exceed bound of memory tag") with a message that starts with the precise violation
(``inp_buffer``, ``wgt_buffer``, ``acc_buffer``, ``uop_buffer``, ``hw_encoding``, ``acc_hazard``,
``loop_extent``, ``dma_size``) and gives the entries needed and available. For a whole-model task the
message names the first failing layer. A batch is evaluated in one vectorised call per task.

``functional=True`` also executes every valid configuration of layers up to ``functional_max_macs`` on
random int8 data (``accel/vta_functional.py``) and checks the result against a direct convolution:
a mismatch is WRONG_ANSWER, and an SRAM overflow the formula missed is UNKNOWN (the model and the
execution disagree), so the analytical constraints are checked against an execution, not assumed.
"""

from __future__ import annotations

import time
from collections import defaultdict
from typing import Any

import numpy as np

from tensortune.accel.vta import HW_KNOBS, SW_KNOBS, Violation, evaluate, evaluate_one, violation_message
from tensortune.core.values import ErrorKind, MeasureInput, MeasureResult, Task
from tensortune.templates import get_template


def design_report(task: Task, values: dict[str, Any]) -> dict[str, float]:
    """Area (mm^2) and on-chip memory (bytes) of the design a configuration runs on."""
    hw, _ = get_template(task.template).decode(task.workload, values, task.target)  # type: ignore[attr-defined]
    return {"area_mm2": hw.area_mm2, "sram_bytes": float(hw.sram_bytes)}


class VtaSimMeasurer:
    def __init__(self, functional: bool = False, functional_max_macs: int = 2_000_000, seed: int = 0) -> None:
        self.functional = functional
        self.functional_max_macs = functional_max_macs
        self.seed = seed
        self.evaluations = 0

    def __enter__(self) -> VtaSimMeasurer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        return None

    def measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]:
        out: list[MeasureResult | None] = [None] * len(inputs)
        by_task: dict[Task, list[int]] = defaultdict(list)
        for i, inp in enumerate(inputs):
            by_task[inp.task].append(i)
        for task, rows in by_task.items():
            for i, r in zip(rows, self._measure_task(task, [inputs[i] for i in rows]), strict=True):
                out[i] = r
        return [r for r in out if r is not None]

    # below this many configurations per task a call evaluates them one by one in plain Python
    # (``evaluate_one``); numpy's per-call overhead only pays off on larger batches
    SCALAR_BATCH = 8

    def _measure_task(self, task: Task, inputs: list[MeasureInput]) -> list[MeasureResult]:
        t0 = time.perf_counter()
        tmpl = get_template(task.template)
        if getattr(tmpl, "target_kind", "") != "vta-sim":
            raise ValueError(f"the vta-sim measurer cannot run template {task.template!r}")
        sp = task.space
        decoded = [tmpl.decode(task.workload, sp.values(inp.config), task.target) for inp in inputs]  # type: ignore[attr-defined]
        freq_hz = decoded[0][0].freq_mhz * 1e6
        n_layers = len(decoded[0][1])
        n = len(inputs)
        # per layer: cycles (inf where it cannot run), violation kind, need, have for every input
        cycles = np.zeros((n_layers, n))
        viol = np.zeros((n_layers, n), dtype=np.int64)
        need = np.zeros((n_layers, n), dtype=np.int64)
        have = np.zeros((n_layers, n), dtype=np.int64)
        for li in range(n_layers):
            layer = decoded[0][1][li][0]
            if n <= self.SCALAR_BATCH:
                for j, d in enumerate(decoded):
                    r1 = evaluate_one(layer, {**d[0].knob_values(), **d[1][li][2]})
                    cycles[li, j], viol[li, j], need[li, j], have[li, j] = (r1["cycles"], r1["violation"], r1["need"],
                                                                           r1["have"])
            else:
                params = {k: np.array([getattr(d[0], k) for d in decoded]) for k in HW_KNOBS}
                params.update({k: np.array([d[1][li][2][k] for d in decoded]) for k in SW_KNOBS})
                res = evaluate(layer, params)
                cycles[li], viol[li], need[li], have[li] = res["cycles"], res["violation"], res["need"], res["have"]
            self.evaluations += n
        counts = np.array([c for _, c, _ in decoded[0][1]], dtype=np.float64)
        elapsed = (time.perf_counter() - t0) / n
        results = []
        for j, d in enumerate(decoded):
            extra: dict[str, Any] = {}
            if n_layers > 1:
                # what a per-layer profile of the model run shows: each layer's share of the total
                # (count x time) or why it cannot run
                extra = {"layer_seconds": [float(counts[li] * cycles[li, j] / freq_hz) if np.isfinite(cycles[li, j])
                                           else None for li in range(n_layers)],
                         "layer_violation": [Violation(int(viol[li, j])).name.lower() for li in range(n_layers)]}
            bad = np.flatnonzero(viol[:, j] != Violation.NONE)
            if len(bad):
                li = int(bad[0])
                msg = violation_message(d[1][li][0], int(viol[li, j]), int(need[li, j]), int(have[li, j]))
                msg = msg if n_layers == 1 else f"{msg} (layer {li + 1})"
                results.append(MeasureResult.failure(ErrorKind.COMPILE_DEVICE, msg, build_seconds=elapsed, extra=extra))
                continue
            total = float(counts @ cycles[:, j])
            r = MeasureResult(costs=(total / freq_hz,), build_seconds=elapsed, extra=extra)
            if self.functional:
                r = self._check(d, r)
            results.append(r)
        return results

    def _check(self, decoded: Any, r: MeasureResult) -> MeasureResult:
        from tensortune.accel.vta_functional import BufferOverflow, direct_conv_int, execute

        hw, layers = decoded
        rng = np.random.default_rng(self.seed)
        for layer, _, sw in layers:
            if layer.ops // 2 > self.functional_max_macs:
                continue
            x = rng.integers(-127, 128, size=(layer.N, layer.C, layer.H, layer.W), dtype=np.int8)
            w = rng.integers(-127, 128, size=(layer.K, layer.C, layer.R, layer.S), dtype=np.int8)
            try:
                acc, _ = execute(layer, hw, sw, x, w)
            except BufferOverflow as e:
                return MeasureResult.failure(ErrorKind.UNKNOWN, f"model says valid but execution overflowed: {e}")
            if not np.array_equal(acc, direct_conv_int(layer, x, w)):
                return MeasureResult.failure(ErrorKind.WRONG_ANSWER, "tiled execution differs from the direct convolution")
        return r
