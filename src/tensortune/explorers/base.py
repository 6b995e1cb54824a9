"""The explorer interface."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

import numpy as np

from tensortune.space import Config, SearchSpace

ScoreFn = Callable[[np.ndarray], np.ndarray]
"""Scores an (n, n_knobs) matrix of option indices; higher is better."""


class Explorer(Protocol):
    """Proposes up to ``n`` promising unvisited configs with their scores (best first).

    ``steps`` reports the search steps (score queries of a batch of walkers) the last call took,
    the figure the Chameleon paper compares between SA and RL.
    """

    steps: int

    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config],
                rng: np.random.Generator, incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        """``incumbents``: the best measured configs, best first (walkers may start there)."""
        ...
