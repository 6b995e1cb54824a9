"""A model-based strategy: cost model + explorer + sampler chain. ``autotvm`` is XGBoost + SA +
greedy-epsilon; later recipes swap the explorer (PPO) or the sampler (adaptive k-means).

As in AutoTVM's ``ModelBasedTuner``: until ``plan_size`` outcomes exist, configs are random; then the
model is refit on all outcomes and the explorer and sampler build a plan, which is handed out in
order; when the whole plan has been measured, the next round refits and replans. With greedy top-k
a plan has ``plan_size`` configs (AutoTVM's rule: a refit every ``plan_size`` outcomes); an adaptive
sampler decides the plan's length itself. ``n_candidates`` is how many scored candidates the explorer
hands to the sampler.

``encode`` replaces the space's own encoding of configs as the cost model's features (transfer
learning passes features that mean the same across shapes, ``transfer/features.py``); with
``plan_first`` the first plan comes from the model before any outcome of its own (the model then
starts from other tasks' records) instead of random configs.

``validity`` (ML2Tuner's model V, ``cost_models/validity.py``) makes V a filter stage of any recipe
(``chameleon+v``): refit every round on all outcomes, it scores configurations it predicts invalid
below all others while the explorer walks, and removes them from the candidates before sampling.

``probes`` (``samplers/probes.py``): each plan made when the incumbent (the best measured config) is new holds,
after the sampler's first ``probe_lead`` picks, up to ``probes`` configs one knob away from the incumbent (each
knob's best-scored alternative), so that a knob on which other tasks' records agree is still tried here once.

``discredited`` (with transfer: ``transfer.prior.PriorCostModel.discredited``, no source ranks the task's own outcomes
better than chance): from ``explore_after`` outcomes on, while that holds at a refit and the task has fewer than
``explore_floor`` outcomes, the plan is random unmeasured configs up to ``explore_floor`` (the outcomes a recipe without
transfer starts its model from), so that a misleading prior does not leave the model trained on its own region only.

``glimpse`` (``transfer.glimpse.TaskGlimpse``: Glimpse's prior and validity vote, trained offline on other
hardware) gives the first configs to measure (instead of random ones) and a validity filter that works
from the first round: configs it votes invalid score below all others and leave the candidates.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from tensortune.cost_models.base import CostModel
from tensortune.cost_models.validity import ValidityModel
from tensortune.explorers.base import Explorer
from tensortune.samplers.base import Sampler
from tensortune.samplers.probes import incumbent_probes
from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import Round
from tensortune.strategies.rounds import Candidates, RoundStrategy


class ModelBasedStrategy(RoundStrategy):
    def __init__(self, space: SearchSpace, seed: int, model: CostModel, explorer: Explorer, sampler: Sampler,
                 plan_size: int = 64, name: str = "model", n_candidates: int | None = None,
                 validity: ValidityModel | None = None, encode: Any = None, plan_first: bool = False,
                 all_candidates: bool = False, glimpse: Any = None, probes: int = 0, probe_lead: int = 0,
                 discredited: Callable[[], bool] | None = None, explore_after: int = 0, explore_floor: int = 0) -> None:
        super().__init__(space, seed)
        if probes < 0 or probe_lead < 0:
            raise ValueError("probes and probe_lead must be >= 0")
        if explore_after < 0 or explore_floor < 0:
            raise ValueError("explore_after and explore_floor must be >= 0")
        self.discredited = discredited
        self._explored: set[Config] = set()  # the configs planned at random while the prior was discredited
        self.explore_after = explore_after
        self.explore_floor = explore_floor
        self.probes = probes
        self.probe_lead = probe_lead
        self.glimpse = glimpse
        self._first = list(glimpse.first_plan) if glimpse is not None else []
        if plan_size < 1:
            raise ValueError("plan_size must be >= 1")
        self.model = model
        self.explorer = explorer
        self.sampler = sampler
        self.plan_size = plan_size
        # the candidate pool is at most 5% of the space (never below a plan): on a space of a few thousand
        # configs, 8 plans of candidates would be a third of it, and adaptive sampling's centroids of such
        # a pool sit in the middle of the space instead of in its promising part (measured on the
        # ground-truth tables: chameleon never improved on its first random plan on L8 without the cap)
        # (``all_candidates``: every valid config the explorer visited, uncapped: ReLeASE's trajectory)
        want = n_candidates or plan_size
        self.n_candidates = 2**62 if all_candidates else min(want, max(plan_size, space.size // 20))
        self.name = name
        self.validity = validity
        self.encode = encode or space.encode_indices
        self.plan_first = plan_first

    def ask(self, n: int) -> list[Config]:
        if self.plan_first and not self.rounds and not self._plan:
            self.replan()  # the model starts from the prior: plan before any outcome of our own
        if self._first and not self.rounds:
            return self.plan_then_random(self._first, n)  # Glimpse's initial samples before any random one
        return self.plan_then_random(self._plan, n)

    def _voted_valid(self, idx: np.ndarray) -> np.ndarray:
        if self.glimpse is None:
            return np.ones(len(idx), dtype=bool)
        return np.asarray(self.glimpse.valid(np.asarray(idx, dtype=np.int64)), dtype=bool)

    def tell(self, configs: list[Config], throughputs: list[float]) -> None:
        super().tell(configs, throughputs)
        # AutoTVM's rule: random configs until ``plan_size`` outcomes, then a plan whenever the last is used
        # up. A model that starts from the prior (``plan_first``) plans again as soon as its plan is used up:
        # an adaptive sampler's plan can be 8 configs, and random ones up to ``plan_size`` threw the prior away
        # (chameleon with transfer needed more measurements than without on L1, L3 and L5 in stop 42)
        ready = self.plan_first or len(self.xs) >= self.plan_size
        if not self._plan and ready and max(self.ys, default=0.0) > 0:
            self.replan()

    def _features(self, cfgs: list[Config]) -> np.ndarray:
        return self.encode(self.space.indices(cfgs))

    def score(self, idx: np.ndarray) -> np.ndarray:
        x = self.encode(idx)
        pred = self.model.predict(x)
        if self.validity is not None and self.validity.fitted:
            pred = np.where(self.validity.predict(x), pred, float(np.min(pred, initial=0.0)) - 1.0)
        if self.glimpse is not None:
            pred = np.where(self._voted_valid(idx), pred, float(np.min(pred, initial=0.0)) - 1.0)
        return pred

    def refit(self, rnd: Round) -> bool:
        """The cost model (and V) on every outcome."""
        x = self._features(self.xs)
        self.model.fit(x, np.array(self.ys))
        if self.validity is not None and len(self.ys):
            self.validity.fit(x, np.array(self.ys) > 0)
        return True

    def propose(self, rnd: Round) -> Candidates:
        order = np.argsort(-np.array(self.ys), kind="stable")
        incumbents = [self.xs[i] for i in order[: self.plan_size] if self.ys[i] > 0]
        cands = self.explorer.propose(self.space, self.score, self.n_candidates, self.visited, self.rng,
                                      incumbents=incumbents)
        rnd.steps, rnd.queries = self.explorer.steps, self.explorer.queries
        return cands

    def filter(self, cands: Candidates, rnd: Round) -> Candidates:
        """V (and Glimpse's vote) remove the candidates they predict invalid."""
        if self.glimpse is not None and cands:
            idx = np.array([c.indices for c, _ in cands], dtype=np.int64).reshape(len(cands), len(self.space.knobs))
            ok = self._voted_valid(idx)
            rnd.rejected = int((~ok).sum())
            cands = [c for c, good in zip(cands, ok, strict=True) if good]
        if self.validity is not None and self.validity.fitted and cands:
            ok = self.validity.predict(self._features([c for c, _ in cands]))
            rnd.rejected = (rnd.rejected or 0) + int((~ok).sum())
            cands = [c for c, good in zip(cands, ok, strict=True) if good]
        return cands

    def sample(self, cands: Candidates, rnd: Round) -> list[Config]:
        if self._explore():
            rnd.explored = min(self.plan_size, self.explore_floor - len(self.ys))
            plan = self.space.sample(rnd.explored, self.rng, exclude=self.visited)
            self._explored.update(plan)
            return plan
        probes = self._incumbent_probes()
        if not probes:
            return self.sampler.select(cands, self.plan_size, self.space, self.visited, self.rng)
        taken = set(probes)
        rest = [c for c in self.sampler.select([(c, v) for c, v in cands if c not in taken], self.plan_size,
                                               self.space, self.visited, self.rng) if c not in taken]
        rnd.probes = len(probes)
        return (rest[: self.probe_lead] + probes + rest[self.probe_lead:])[: self.plan_size]

    @property
    def explored(self) -> int:
        """How many of the measured configs were planned at random while the prior was discredited."""
        return len(self._explored & self.visited)

    def _explore(self) -> bool:
        """Random configs instead of the model's plan: the prior is discredited at this refit (a rule on the outcomes
        alone, as the probes', so that a resumed run explores as an uninterrupted one)."""
        return (self.discredited is not None and self.explore_after <= len(self.ys) < self.explore_floor
                and self.discredited())

    def _incumbent_probes(self) -> list[Config]:
        """The probes of the incumbent when it is new since the last plan: measured among the last ``plan_size``
        outcomes (a plan's length). A rule on the outcomes alone, not on what this object planned, so that a
        resumed run, and a whole-model run that makes a new strategy every round and replays the task's records
        into it, probe as one uninterrupted run would (``samplers.probes``)."""
        if not self.probes or not self.ys or max(self.ys) <= 0:
            return []
        best = int(np.argmax(np.array(self.ys)))
        if best < len(self.ys) - self.plan_size:
            return []
        return incumbent_probes(self.space, self.xs[best], self.score, self.visited, self.probes)
