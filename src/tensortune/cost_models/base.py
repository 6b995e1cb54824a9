"""The cost-model interface."""

from __future__ import annotations

from typing import Protocol

import numpy as np


class CostModel(Protocol):
    """Scores configurations from features; higher is better. ``fit`` may be called every round."""

    def fit(self, x: np.ndarray, y: np.ndarray) -> None: ...

    def predict(self, x: np.ndarray) -> np.ndarray: ...

    @property
    def fitted(self) -> bool: ...


def training_arrays(x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Features (float32) and targets (float64) of one fit, checked: some rows, one target per row."""
    x = np.asarray(x, dtype=np.float32)
    y = np.asarray(y, dtype=np.float64)
    if len(x) == 0:
        raise ValueError("cannot fit a cost model on no data")
    if len(x) != len(y):
        raise ValueError(f"{len(x)} feature rows but {len(y)} targets")
    return x, y
