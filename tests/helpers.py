"""Test helpers: a non-TVM measurer with a known landscape, to test the loop without hardware."""

from __future__ import annotations

import textwrap

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


KNOB_TARGET = np.array([9, 2, 11, 5, 7, 1])


def knob_landscape(groups: tuple[str, ...] | None = None):
    """Six 12-option knobs (in ``groups`` round-robin, if given) scored by minus the distance to KNOB_TARGET."""
    from tensortune.space import OptionKnob, SearchSpace

    sp = SearchSpace([OptionKnob(f"k{i}", list(range(12)), **({"group": groups[i % len(groups)]} if groups else {}))
                      for i in range(6)])

    def score(idx):
        return -np.sqrt(np.sum((np.asarray(idx) - KNOB_TARGET) ** 2, axis=1)).astype(float)

    return sp, score


# a user's model file (``--model tiny.py:Tiny``): a 3-channel stem, a 16-channel 3x3 conv with a residual, a dense
TINY = textwrap.dedent('''
    import torch
    from torch import nn

    class Tiny(nn.Module):
        example_input_shape = (1, 3, 16, 16)

        def __init__(self):
            super().__init__()
            torch.manual_seed(0)
            self.conv = nn.Conv2d(3, 16, 3, padding=1)
            self.conv2 = nn.Conv2d(16, 16, 3, padding=1)
            self.fc = nn.Linear(16, 10)

        def forward(self, x):
            y = torch.relu(self.conv(x))
            y = torch.relu(self.conv2(y) + y)
            return self.fc(y.mean(dim=(2, 3)))
''')
