"""Features of (task, config) that mean the same across shapes, so records of one layer teach another.

A config's own encoding (``SearchSpace.encode``: option indices and one-hots) changes meaning with the
shape: option 7 of a split knob is one tiling of 56 and another of 28. Here every split knob gives,
per factor, its log2 and its fraction of the knob's extent (the loop's length); every numeric
option knob its value (log2 for values above 1); a non-numeric option its position among the knob's
options. Shape features come first: log2 of batch, input channels, height, width, output channels,
the kernel size, stride, padding, groups and the FLOPs (a dense layer is a 1x1 convolution of its
M x K input, so convs and dense layers share the columns).

Two tasks can share a model only if their templates' knob layouts match (same knob names, split
factors per knob): :meth:`TransferFeatures.signature` says which.
"""

from __future__ import annotations

import math
from functools import cached_property
from typing import Any

import numpy as np

from tensortune.core.values import Task

SHAPE_COLUMNS = ("log2_batch", "log2_c", "log2_h", "log2_w", "log2_k", "kernel_h", "kernel_w", "stride", "pad",
                 "groups", "log2_flops")


def _log2(x: float) -> float:
    return math.log2(x) if x > 0 else -1.0


def shape_features(workload: Any) -> np.ndarray:
    """The shape columns of a workload (zeros where a workload kind has no such dimension)."""
    conv = _as_conv(workload)
    flops = float(getattr(workload, "flops", 0.0) or 0.0)
    if conv is not None:
        c, groups = conv
        return np.array([_log2(c.batch), _log2(c.in_channels), _log2(c.height), _log2(c.width),
                         _log2(c.out_channels), c.kernel[0], c.kernel[1], c.stride[0], c.padding[0], groups,
                         _log2(flops)], dtype=np.float64)
    if getattr(workload, "op", "") == "dense":
        return np.array([0.0, _log2(workload.in_features), _log2(workload.batch), 0.0, _log2(workload.out_features),
                         1, 1, 1, 0, 1, _log2(flops)], dtype=np.float64)
    out = np.zeros(len(SHAPE_COLUMNS))
    out[-1] = _log2(flops)
    return out


def _as_conv(workload: Any) -> tuple[Any, int] | None:
    if str(getattr(workload, "op", "")).startswith("conv2d"):
        return workload, 1
    if getattr(workload, "op", "") == "tir":
        from tensortune.templates.tir_schedules import blocked_conv_params, conv_params

        try:
            c = conv_params(workload)
            if c is None:
                b = blocked_conv_params(workload)
                c = b[0] if b else None
        except Exception:
            return None
        return (c, 1) if c is not None else None
    return None


class TransferFeatures:
    """The transferable encoding of one task's configs."""

    def __init__(self, task: Task) -> None:
        self.task = task
        self.space = task.space

    @cached_property
    def shape(self) -> np.ndarray:
        return shape_features(self.task.workload)

    @cached_property
    def signature(self) -> tuple:
        """What must match for two tasks' features to share columns: the template family and, per knob,
        its name and kind (and the number of factors of a split)."""
        family = self.task.template.removesuffix("-small")
        parts = []
        for k in self.space.knobs:
            if k.kind == "split":
                parts.append((k.name, "split", len(k.options[0])))
            else:
                parts.append((k.name, "option"))
        return (family, tuple(parts))

    def _knob_columns(self, knob: Any) -> tuple[np.ndarray, int]:
        """Per option of the knob, its feature row (a table, so encoding is a gather)."""
        if knob.kind == "split":
            ext = float(np.prod(knob.options[0]))
            rows = [[v for f in opt for v in (_log2(f), f / ext)] for opt in knob.options]
        elif all(isinstance(o, int | float) and not isinstance(o, bool) for o in knob.options):
            rows = [[_log2(float(o)) if o > 1 else float(o)] for o in knob.options]
        else:
            n = max(len(knob.options) - 1, 1)
            rows = [[i / n] for i in range(len(knob.options))]
        table = np.array(rows, dtype=np.float64)
        return table, table.shape[1]

    @cached_property
    def _tables(self) -> list[np.ndarray]:
        return [self._knob_columns(k)[0] for k in self.space.knobs]

    @property
    def width(self) -> int:
        return len(self.shape) + sum(t.shape[1] for t in self._tables)

    def encode_indices(self, idx: np.ndarray) -> np.ndarray:
        """Features of configs given as option-index rows (n, knobs) or flat config indices (n,)."""
        idx = np.asarray(idx)
        if idx.ndim == 1:
            idx = np.array([self.space.config(int(i)).indices for i in idx], dtype=np.int64).reshape(len(idx), -1)
        n = len(idx)
        cols = [np.repeat(self.shape[None, :], n, axis=0)]
        cols += [t[idx[:, j]] for j, t in enumerate(self._tables)]
        return np.concatenate(cols, axis=1) if n else np.zeros((0, self.width))

    def encode_values(self, values: list[dict[str, Any]]) -> np.ndarray:
        """Features of configs given as knob values (as stored in records); a value not among the
        knob's options raises ValueError."""
        rows = [self.space.from_json(v).indices for v in values]
        return self.encode_indices(np.array(rows, dtype=np.int64).reshape(len(rows), len(self.space.knobs)))
