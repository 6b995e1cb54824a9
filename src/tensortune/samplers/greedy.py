"""AutoTVM's plan: the top (1 - eps) * k candidates by predicted score, the rest uniformly random.

With ``diversity`` r >= 1 the greedy part is picked among the top r x (1 - eps) x k candidates by AutoTVM's
submodular pick (its ``diversity_filter_ratio``, ``autotvm.tuner.model_based_tuner.submodular_pick``): one by one,
the candidate whose score plus the number of knobs on which it takes a value no pick so far has taken is
largest. Scores enter as their rank in the pool, scaled to [0, 1] (a rank-loss model's scores have no unit), so a
new value on one knob weighs as much as the whole score range, and the pool's cut keeps the plan among the
model's best."""

from __future__ import annotations

import math

import numpy as np

from tensortune.space import Config, SearchSpace


class GreedyEpsilon:
    def __init__(self, epsilon: float = 0.05, diversity: float = 0.0) -> None:
        if not 0.0 <= epsilon <= 1.0:
            raise ValueError(f"epsilon must be in [0, 1], not {epsilon}")
        if diversity != 0.0 and not diversity >= 1.0:
            raise ValueError(f"diversity must be 0 (off) or a pool ratio >= 1, not {diversity}")
        self.epsilon = epsilon
        self.diversity = diversity

    def select(self, candidates: list[tuple[Config, float]], k: int, space: SearchSpace, exclude: set[Config],
               rng: np.random.Generator) -> list[Config]:
        n_greedy = int(round(k * (1.0 - self.epsilon)))
        pool_size = max(n_greedy, math.ceil(self.diversity * n_greedy))
        pool: list[Config] = []
        taken = set(exclude)
        for c, _ in candidates:
            if len(pool) >= pool_size:
                break
            if c not in taken:
                pool.append(c)
                taken.add(c)
        out = submodular_pick(pool, n_greedy) if self.diversity else pool[:n_greedy]
        taken = set(exclude) | set(out)
        out += space.sample(k - len(out), rng, exclude=taken)
        return out


def submodular_pick(pool: list[Config], n: int) -> list[Config]:
    """``n`` of ``pool`` (best first): each next pick maximises its rank score (1 for the best of the pool, 0 for
    its last) plus the number of knobs on which its value is new among the picks so far; ties go to the better."""
    if len(pool) <= n:
        return list(pool)
    m = len(pool)
    score = [1.0 - i / max(m - 1, 1) for i in range(m)]
    seen: list[set[int]] = [set() for _ in pool[0].indices]
    left = list(range(m))
    out: list[Config] = []
    for _ in range(n):
        gain = [score[i] + sum(v not in s for v, s in zip(pool[i].indices, seen, strict=True)) for i in left]
        j = left.pop(int(np.argmax(gain)))  # the first maximum: the better-ranked of equals
        out.append(pool[j])
        for v, s in zip(pool[j].indices, seen, strict=True):
            s.add(v)
    return out
