"""Test helpers: a non-TVM measurer with a known landscape, to test the loop without hardware."""

from __future__ import annotations

import numpy as np

from tensortune.core.values import ErrorKind, MeasureInput, MeasureResult
from tensortune.templates import make_task


class LandscapeMeasurer:
    """Answers from an analytic cost over the knob indices (a backend that is not TVM): the cost is
    lowest at ``optimum``; configs whose first knob index is in ``fail_first`` fail to compile."""

    def __init__(self, optimum: tuple[int, ...], fail_first: tuple[int, ...] = ()) -> None:
        self.optimum = np.array(optimum)
        self.fail_first = fail_first
        self.calls: list[list[MeasureInput]] = []

    def cost(self, indices: tuple[int, ...]) -> float:
        d = np.array(indices) - self.optimum
        return 1e-3 * (1.0 + float(np.sum(d * d)))

    def measure(self, inputs: list[MeasureInput]) -> list[MeasureResult]:
        self.calls.append(list(inputs))
        out = []
        for inp in inputs:
            if inp.config.indices[0] in self.fail_first:
                out.append(MeasureResult.failure(ErrorKind.COMPILE_HOST, "synthetic failure"))
            else:
                c = self.cost(inp.config.indices)
                out.append(MeasureResult(costs=(c, c, c)))
        return out

    def close(self) -> None:
        pass


def landscape_task():
    """A Task over the dense template's space (no TVM build happens with LandscapeMeasurer)."""
    from tensortune.workloads import Dense

    return make_task(Dense.make(8, 64, 64), "dense.llvm", {"kind": "llvm", "num-cores": 1}, "synthetic")
