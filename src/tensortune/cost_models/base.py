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
