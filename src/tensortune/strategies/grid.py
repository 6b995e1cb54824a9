"""Exhaustive search, for small spaces: in index order, or in a seeded random order (``order="shuffled"``), so that
a slow or fast phase of the machine falls on configs from all over the space rather than on a run of neighbours."""

from __future__ import annotations

import numpy as np

from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import SearchStrategy

MAX_GRID = 200_000


class GridSearch(SearchStrategy):
    name = "grid"

    def __init__(self, space: SearchSpace, seed: int = 0, order: str = "index") -> None:
        if space.size > MAX_GRID:
            raise ValueError(f"grid search needs a small space: this one has {space.size:,} configs (limit {MAX_GRID:,})")
        if order not in ("index", "shuffled"):
            raise ValueError(f"grid order must be 'index' or 'shuffled', not {order!r}")
        super().__init__(space, seed)
        self._order = (np.random.default_rng(seed).permutation(space.size) if order == "shuffled"
                       else np.arange(space.size))
        self._next = 0

    def ask(self, n: int) -> list[Config]:
        out: list[Config] = []
        while len(out) < n and self._next < self.space.size:
            c = self.space.config(int(self._order[self._next]))
            self._next += 1
            if c not in self.visited and self.space.is_valid(c):
                out.append(c)
        return out
