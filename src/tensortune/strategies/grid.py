"""Exhaustive search in index order, for small spaces."""

from __future__ import annotations

from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import SearchStrategy

MAX_GRID = 200_000


class GridSearch(SearchStrategy):
    name = "grid"

    def __init__(self, space: SearchSpace, seed: int = 0) -> None:
        if space.size > MAX_GRID:
            raise ValueError(f"grid search needs a small space: this one has {space.size:,} configs (limit {MAX_GRID:,})")
        super().__init__(space, seed)
        self._next = 0

    def ask(self, n: int) -> list[Config]:
        out: list[Config] = []
        while len(out) < n and self._next < self.space.size:
            c = self.space.config(self._next)
            self._next += 1
            if c not in self.visited and self.space.is_valid(c):
                out.append(c)
        return out
