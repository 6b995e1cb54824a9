"""AutoTVM's parallel simulated annealing over a cost model (``SimulatedAnnealingOptimizer``).

128 chains persist across rounds; each step moves every chain (AutoTVM's ``random_walk``: one random
knob to a uniformly random other option; ``step="neighbor"``: one knob one option up or down, this
package's behaviour before issue 20), accepts with
probability exp((new - old) / T) with T falling linearly from 1 to 0 over at most 500 steps, and
keeps a heap of the best unvisited points; it stops early after 50 steps without a new entry in the
heap.
"""

from __future__ import annotations

import heapq

import numpy as np

from tensortune.explorers.base import ScoreFn
from tensortune.space import Config, SearchSpace


class SimulatedAnnealing:
    def __init__(self, n_chains: int = 128, max_steps: int = 500, early_stop: int = 50,
                 temp: tuple[float, float] = (1.0, 0.0), persistent: bool = True, step: str = "uniform") -> None:
        if step not in ("uniform", "neighbor"):
            raise ValueError(f"step must be 'uniform' or 'neighbor', not {step!r}")
        self.step = step
        self.n_chains = n_chains
        self.max_steps = max_steps
        self.early_stop = early_stop
        self.temp = temp
        self.persistent = persistent
        self.steps = 0
        self.queries = 0  # configurations scored by the model in the last round
        self._points: np.ndarray | None = None

    def state_bytes(self) -> bytes | None:
        """None: the chains are not checkpointed (a resumed run restarts them from random points)."""
        return None

    def load_state_bytes(self, data: bytes) -> None:
        pass

    def _start_points(self, space: SearchSpace, rng: np.random.Generator) -> np.ndarray:
        if self.persistent and self._points is not None and self._points.shape[1] == len(space.knobs):
            return self._points
        cfgs = space.sample(self.n_chains, rng)
        if not cfgs:
            raise RuntimeError("no valid configuration could be sampled from the space")
        pts = space.indices(cfgs)
        if len(pts) < self.n_chains:
            pts = pts[rng.integers(0, len(pts), size=self.n_chains)]
        return pts

    def propose(self, space: SearchSpace, score: ScoreFn, n: int, exclude: set[Config],
                rng: np.random.Generator, incumbents: list[Config] | None = None) -> list[tuple[Config, float]]:
        points = self._start_points(space, rng)
        scores = score(points)
        self.queries = len(points)
        heap: list[tuple[float, tuple[int, ...]]] = []
        in_heap: set[tuple[int, ...]] = set()
        excluded = {c.indices for c in exclude}

        def push(pts: np.ndarray, scs: np.ndarray) -> bool:
            changed = False
            for p, s in zip(pts, scs, strict=True):
                key = tuple(int(v) for v in p)
                if key in in_heap or key in excluded:
                    continue
                if len(heap) < n:
                    heapq.heappush(heap, (float(s), key))
                    in_heap.add(key)
                    changed = True
                elif s > heap[0][0]:
                    _, old = heapq.heapreplace(heap, (float(s), key))
                    in_heap.discard(old)
                    in_heap.add(key)
                    changed = True
            return changed

        valid = space.valid_mask(points)
        scores = np.where(valid, scores, -np.inf)
        push(points[valid], scores[valid])
        t0, t1 = self.temp
        cool = (t0 - t1) / max(1, self.max_steps)
        t = t0
        since = 0
        step = 0
        for step in range(1, self.max_steps + 1):  # noqa: B007
            new = (space.random_mutation if self.step == "uniform" else space.random_step)(points, rng)
            ok = space.valid_mask(new)
            new_scores = np.where(ok, score(new), -np.inf)
            self.queries += len(new)
            with np.errstate(over="ignore", invalid="ignore"):
                prob = np.exp(np.minimum((new_scores - scores) / (t + 1e-5), 1.0))
            accept = (rng.random(len(points)) < prob) & ok
            points = np.where(accept[:, None], new, points)
            scores = np.where(accept, new_scores, scores)
            since = 0 if push(new[ok], new_scores[ok]) else since + 1
            if since >= self.early_stop:
                break
            t = max(t - cool, t1)
        self.steps = step
        self._points = points
        ranked = sorted(heap, key=lambda e: -e[0])
        return [(Config(k), s) for s, k in ranked]
