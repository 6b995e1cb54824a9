"""Glimpse (DAC 2022) as a search strategy: Bayesian optimisation whose three hardware-aware parts were
trained offline on other hardware (``transfer/glimpse.py``).

- first plan: the prior generator's most probable configs for this (layer, Blueprint), through the vote;
- surrogate: a bootstrap ensemble of XGBoost regressors (``cost_models/ensemble.py``), so every candidate
  has a prediction and an uncertainty;
- exploration: simulated annealing walks on the surrogate's mean and hands over its best unvisited
  candidates (as AutoTVM's), the validity vote removes those it calls invalid (more than 1/3 of the
  per-knob threshold predictors), and the **neural acquisition function** (``samplers/neural_acquisition.py``)
  picks the plan from what is left by its scores of (mean, uncertainty, step / budget, Blueprint).

``glimpse`` is what ``transfer.glimpse.GlimpseModels.for_task`` returns: ``first_plan``, ``valid``,
``acquisition`` and ``blueprint``. The budget ``T`` is part of the acquisition function's state, so the
strategy is told it (the tuning run's measurement budget).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.cost_models.ensemble import BootstrapEnsemble
from tensortune.explorers.base import Explorer
from tensortune.samplers.greedy import GreedyEpsilon
from tensortune.samplers.neural_acquisition import acquisition_state
from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import Round
from tensortune.strategies.model_based import ModelBasedStrategy
from tensortune.strategies.rounds import Candidates


class GlimpseStrategy(ModelBasedStrategy):
    def __init__(self, space: SearchSpace, seed: int, explorer: Explorer, glimpse: Any, budget: int,
                 plan_size: int = 8, n_candidates: int = 128, members: int = 5, acquisition: str = "network") -> None:
        if acquisition not in ("network", "mean"):
            raise ValueError(f"acquisition must be 'network' or 'mean' (an ablation: the ensemble's mean), "
                             f"not {acquisition!r}")
        if glimpse is None or getattr(glimpse, "acquisition", None) is None:
            raise ValueError("the glimpse recipe needs Glimpse models with an acquisition function "
                             "(`tensortune glimpse-train`, then `tune --tuner glimpse`)")
        if budget < 1:
            raise ValueError(f"the glimpse recipe needs the run's measurement budget, got {budget}")
        super().__init__(space, seed, BootstrapEnsemble(members=members, seed=seed), explorer,
                         GreedyEpsilon(epsilon=0.0), plan_size=plan_size, name="glimpse",
                         n_candidates=n_candidates, glimpse=glimpse)
        self.n_candidates = n_candidates  # the acquisition function chooses among these, uncapped
        self.budget = budget
        self.acquisition = glimpse.acquisition
        self.by_mean = acquisition == "mean"
        self.blueprint = np.asarray(glimpse.blueprint, dtype=np.float64)

    def filter(self, cands: Candidates, rnd: Round) -> Candidates:
        """The vote removes candidates; when it removes every one (it is wrong about this hardware), the
        network chooses among all of them, as in its training episodes."""
        kept = super().filter(cands, rnd)
        return kept if kept else cands

    def sample(self, cands: Candidates, rnd: Round) -> list[Config]:
        cands = [(c, s) for c, s in cands if c not in self.visited]
        if not cands:
            return []
        idx = np.array([c.indices for c, _ in cands], dtype=np.int64).reshape(len(cands), len(self.space.knobs))
        mu, sigma = self.model.predict_mean_std(self.encode(idx))
        if self.by_mean:  # the ablation: the same loop with the plan taken by the ensemble's mean
            return [cands[i][0] for i in np.argsort(-mu, kind="stable")[: self.plan_size]]
        best = 1.0 if max(self.ys, default=0.0) > 0 else 0.0  # the ensemble's targets: throughput / best measured
        states = acquisition_state(mu, sigma, best, len(self.xs), self.budget, self.blueprint)
        picks, _ = self.acquisition.choose(states, self.plan_size)
        return [cands[i][0] for i in picks]
