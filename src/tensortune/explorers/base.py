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

    What the tuning loop reads of it, after each call: ``steps``, the search steps (score queries
    of a batch of walkers) the call took, the figure the Chameleon paper compares between SA and RL;
    ``queries``, the configurations the cost model scored. Its learned state (None if it keeps
    none) is checkpointed with the run and restored on resume.
    """

    steps: int
    queries: int

    def state_bytes(self) -> bytes | None: ...

    def load_state_bytes(self, data: bytes) -> None: ...

    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config],
                rng: np.random.Generator, incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        """``incumbents``: the best measured configs, best first (walkers may start there)."""
        ...
