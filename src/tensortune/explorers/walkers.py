"""Pieces shared by the walker-based RL explorers (Chameleon's PPO, ARCO's MAPPO)."""

from __future__ import annotations

import numpy as np

from tensortune.space import Config, SearchSpace


def start_points(space: SearchSpace, incumbents: list[Config], n_walkers: int, incumbent_share: float,
                 rng: np.random.Generator) -> np.ndarray:
    """Walker start points: up to ``incumbent_share`` of them at the best measured configs, the rest random."""
    n_inc = min(len(incumbents), int(n_walkers * incumbent_share))
    pts = [c.indices for c in incumbents[:n_inc]]
    pts += [c.indices for c in space.sample(n_walkers - len(pts), rng)]
    arr = np.array(pts, dtype=np.int64)
    if len(arr) < n_walkers:
        arr = arr[rng.integers(0, len(arr), size=n_walkers)]
    return arr


def gae(R: np.ndarray, V: np.ndarray, M: np.ndarray, gamma: float, lam: float) -> np.ndarray:
    """Generalised advantage estimates of (T, W) rewards R and values V; M marks walkers still alive."""
    T, W = R.shape
    adv = np.zeros_like(R)
    last = np.zeros(W)
    for t in reversed(range(T)):
        nxt_v = V[t + 1] if t + 1 < T else np.zeros(W)
        nonterm = M[t + 1] if t + 1 < T else np.zeros(W, dtype=bool)
        delta = R[t] + gamma * nxt_v * nonterm - V[t]
        last = delta + gamma * lam * nonterm * last
        adv[t] = last
    return adv
