"""A model-based strategy: cost model + explorer + sampler chain. ``autotvm`` is XGBoost + SA +
greedy-epsilon; later recipes swap the explorer (PPO) or the sampler (adaptive k-means).

As in AutoTVM's ``ModelBasedTuner``: until ``plan_size`` outcomes exist, configs are random; after
every further ``plan_size`` outcomes the model is refit on all outcomes and the explorer builds a
new plan of ``plan_size`` configs, which is then handed out in order.
"""

from __future__ import annotations

import numpy as np

from tensortune.cost_models.base import CostModel
from tensortune.explorers.base import Explorer
from tensortune.samplers.base import Sampler
from tensortune.space import Config, SearchSpace
from tensortune.tuners.strategy import SearchStrategy


class ModelBasedStrategy(SearchStrategy):
    def __init__(self, space: SearchSpace, seed: int, model: CostModel, explorer: Explorer, sampler: Sampler,
                 plan_size: int = 64, name: str = "model") -> None:
        super().__init__(space, seed)
        if plan_size < 1:
            raise ValueError("plan_size must be >= 1")
        self.model = model
        self.explorer = explorer
        self.sampler = sampler
        self.plan_size = plan_size
        self.name = name
        self._plan: list[Config] = []
        self._fits = 0
        self.plan_lengths: list[int] = []

    def ask(self, n: int) -> list[Config]:
        out: list[Config] = []
        while self._plan and len(out) < n:
            c = self._plan.pop(0)
            if c not in self.visited and c not in out:
                out.append(c)
        if len(out) < n:
            out += self.space.sample(n - len(out), self.rng, exclude=self.visited | set(out))
        return out

    def tell(self, configs: list[Config], throughputs: list[float]) -> None:
        super().tell(configs, throughputs)
        if len(self.xs) >= self.plan_size * (self._fits + 1) and max(self.ys, default=0.0) > 0:
            self.replan()

    def score(self, idx: np.ndarray) -> np.ndarray:
        return self.model.predict(self.space.encode_indices(idx))

    def replan(self) -> None:
        """Refit the model on every outcome and build the next plan."""
        self.model.fit(self.space.encode(self.xs), np.array(self.ys))
        self._fits = len(self.xs) // self.plan_size
        cands = self.explorer.propose(self.space, self.score, self.plan_size, self.visited, self.rng)
        self.search_steps.append(int(getattr(self.explorer, "steps", 0)))
        self._plan = self.sampler.select(cands, self.plan_size, self.space, self.visited, self.rng)
        self.plan_lengths.append(len(self._plan))
