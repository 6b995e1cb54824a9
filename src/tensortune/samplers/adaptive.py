"""Chameleon's adaptive sampling with sample synthesis (Algorithm 1 of the paper).

k-means over the candidates for k = 8, 16, ..., 64, stopping at the knee of the loss curve: the first k
whose loss times ``threshold`` exceeds the previous k's loss (2.5, as in the public code). The chosen
k's centroids are snapped to valid configurations (rounded knob indices; an invalid rounding falls
back to the nearest candidate of its cluster). A centroid already measured is replaced by the
synthesised configuration: every knob's most frequent value among the candidates. Duplicates and
measured configurations are dropped, so the number of configurations measured per round varies.

As in every AutoTVM model-based plan (``ModelBasedTuner.next_batch``), the last ``epsilon x plan_size``
slots of a plan (5%: 3 of 64) are uniformly random unmeasured configs; ``epsilon=0`` gives the plan
of this package before issue 20, which had none.

``keep_best`` (0 as published) opens the plan with that many of the best-scored unmeasured candidates, before
the centroids: an option for a model that starts from other tasks' records (``tuners.recipes.TRANSFER_KEEP_BEST``
says what it did there).

Which candidates it clusters is the recipe's choice (``tuners/recipes.py``): Chameleon's are the
``plan_size`` best-scored configs of the explorer (the authors' ``find_maximums(model, plan_size,
...)``), ReLeASE's the whole search trajectory ("the agent feeds trajectory of configurations into
our adaptive sampling module").
"""

from __future__ import annotations

from collections import Counter

import numpy as np

from tensortune.space import Config, SearchSpace


def knee_k(losses: list[tuple[int, float]], threshold: float) -> int:
    """The k at which the loss curve's knee is detected (the last k if none)."""
    prev = float("inf")
    for k, loss in losses:
        if threshold * loss > prev:
            return k
        prev = loss
    return losses[-1][0]


def mode_config(candidates: list[Config]) -> Config:
    """Per knob, the most frequent option among the candidates (ties: the smallest index)."""
    cols = zip(*(c.indices for c in candidates), strict=True)
    return Config(tuple(min(Counter(col).most_common(), key=lambda kv: (-kv[1], kv[0]))[0] for col in cols))


class AdaptiveSampler:
    candidate_factor = 1  # Chameleon clusters the plan_size best candidates

    def __init__(self, ks: tuple[int, ...] = (8, 16, 24, 32, 40, 48, 56, 64), threshold: float = 2.5,
                 max_candidates: int = 2048, epsilon: float = 0.05, keep_best: int = 0) -> None:
        if keep_best < 0:
            raise ValueError(f"keep_best must be >= 0, not {keep_best}")
        self.keep_best = keep_best
        if threshold <= 1.0:
            raise ValueError("the knee threshold must be > 1")
        if not 0.0 <= epsilon < 1.0:
            raise ValueError(f"epsilon must be in [0, 1), not {epsilon}")
        self.epsilon = epsilon
        self.ks = ks
        self.threshold = threshold
        self.max_candidates = max_candidates
        self.last_k = 0
        self.last_losses: list[tuple[int, float]] = []
        self.last_synthesized = 0

    def cluster(self, x: np.ndarray, rng: np.random.Generator) -> tuple[int, np.ndarray, np.ndarray]:
        """Run the meta-search; (k, centroids, labels) of the chosen k."""
        from sklearn.cluster import KMeans

        n_unique = len(np.unique(x, axis=0))
        losses: list[tuple[int, float]] = []
        fits = {}
        prev = float("inf")
        for k in self.ks:
            if k > n_unique:
                break
            km = KMeans(n_clusters=k, n_init=1, random_state=int(rng.integers(2**31))).fit(x)
            losses.append((k, float(km.inertia_)))
            fits[k] = km
            if self.threshold * km.inertia_ > prev:
                break
            prev = km.inertia_
        if not losses:  # fewer unique candidates than the smallest k: each is its own cluster
            k = n_unique
            km = KMeans(n_clusters=k, n_init=1, random_state=0).fit(x)
            losses, fits = [(k, float(km.inertia_))], {k: km}
        self.last_losses = losses
        k = knee_k(losses, self.threshold)
        return k, fits[k].cluster_centers_, fits[k].labels_

    def select(self, candidates: list[tuple[Config, float]], k: int, space: SearchSpace, exclude: set[Config],
               rng: np.random.Generator) -> list[Config]:
        cands = [c for c, _ in candidates[: self.max_candidates]]
        if not cands:
            return []
        top = (space.radices - 1).clip(min=1)
        idx = np.array([c.indices for c in cands], dtype=np.float64)
        x = idx / top
        chosen_k, centers, labels = self.cluster(x, rng)
        self.last_k = chosen_k
        synth = mode_config(cands)
        out: list[Config] = []
        taken = set(exclude)
        for c in cands:  # the best-scored unmeasured candidates first (``keep_best``; 0 as published)
            if len(out) >= self.keep_best:
                break
            if c not in taken:
                taken.add(c)
                out.append(c)
        n_best = len(out)
        self.last_synthesized = 0
        for ci, center in enumerate(centers):
            snapped = Config(tuple(int(v) for v in np.clip(np.rint(center * top), 0, space.radices - 1)))
            if not space.is_valid(snapped):
                members = np.flatnonzero(labels == ci)
                best = members[np.argmin(((x[members] - center) ** 2).sum(axis=1))]
                snapped = cands[int(best)]
            if snapped in exclude:
                snapped = synth
                self.last_synthesized += 1
            if snapped in taken or not space.is_valid(snapped):
                continue
            taken.add(snapped)
            out.append(snapped)
        out = out[: max(k, 1) + n_best]
        n_random = int(self.epsilon * k)
        if n_random and out:
            out = out[: max(1, len(out) - n_random)]
            out += space.sample(n_random, rng, exclude=set(out) | set(exclude))
        return out
