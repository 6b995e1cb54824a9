"""Uniform random search without replacement."""

from __future__ import annotations

from tensortune.space import Config
from tensortune.strategies.base import SearchStrategy


class RandomSearch(SearchStrategy):
    name = "random"

    def ask(self, n: int) -> list[Config]:
        return self.space.sample(n, self.rng, exclude=self.visited)
