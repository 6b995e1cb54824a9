"""A knob option's magnitude: what grows with the resources a config needs (a number's value, a split's
inner tile). Glimpse's prior generator and validity vote work on log2 magnitudes, which mean the same in
spaces whose options differ (a tile's options are the divisors of that layer's extent)."""

from __future__ import annotations

from typing import Any

import numpy as np


def magnitude(value: Any) -> float:
    """A knob option's magnitude: a number itself, a split's inner tile, 1 for anything else."""
    if isinstance(value, bool):
        return float(value) + 1.0
    if isinstance(value, (int, float, np.integer, np.floating)):
        return max(float(value), 1.0)
    if isinstance(value, (tuple, list)) and value and all(isinstance(v, (int, np.integer)) for v in value):
        return float(np.prod(value[1:])) if len(value) > 1 else float(value[0])
    return 1.0


def option_magnitudes(knob: Any) -> np.ndarray:
    """log2 magnitude of each option of a knob."""
    return np.log2([magnitude(o) for o in knob.options])


def magnitudes(space: Any, idx: np.ndarray) -> np.ndarray:
    """(n_configs, n_knobs) log2 magnitudes of configs given as a ``SearchSpace`` index matrix
    (one option index per knob and row)."""
    idx = np.asarray(idx, dtype=np.int64).reshape(-1, len(space.knobs))
    return np.stack([option_magnitudes(k)[idx[:, j]] for j, k in enumerate(space.knobs)], axis=1)
