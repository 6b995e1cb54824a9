"""AutoTVM's plan: the top (1 - eps) * k candidates by predicted score, the rest uniformly random."""

from __future__ import annotations

import numpy as np

from tensortune.space import Config, SearchSpace


class GreedyEpsilon:
    def __init__(self, epsilon: float = 0.05) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], not {epsilon}")
        self.epsilon = epsilon

    def select(self, candidates: list[tuple[Config, float]], k: int, space: SearchSpace, exclude: set[Config],
               rng: np.random.Generator) -> list[Config]:
        n_greedy = int(round(k * (1.0 - self.epsilon)))
        out: list[Config] = []
        taken = set(exclude)
        for c, _ in candidates:
            if len(out) >= n_greedy:
                break
            if c not in taken:
                out.append(c)
                taken.add(c)
        out += space.sample(k - len(out), rng, exclude=taken)
        return out
