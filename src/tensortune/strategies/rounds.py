"""The one round of every model-based strategy: refit the models on all outcomes, let the explorer
propose scored candidates, filter them, and sample the plan to measure. Strategies give the pieces
(:meth:`refit`, :meth:`propose`, :meth:`filter`, :meth:`sample`); the skeleton keeps the order and a
record of each round, instead of telemetry lists on the base class."""

from __future__ import annotations

from tensortune.explorers.base import Explorer
from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import Round, SearchStrategy

Candidates = list[tuple[Config, float]]


class RoundStrategy(SearchStrategy):
    """A strategy that measures in rounds. ``replan`` runs the skeleton once; subclasses decide when
    (usually when the plan is used up) and implement the stages."""

    explorer: Explorer  # set by the subclass

    def __init__(self, space: SearchSpace, seed: int = 0) -> None:
        super().__init__(space, seed)
        self._plan: list[Config] = []
        self._dirty = False  # the explorer learned something since the last checkpoint

    # ------------------------------------------------------------------ the stages
    def refit(self, rnd: Round) -> bool:
        """Fit the models on every outcome; False when there is nothing to rank by yet (the round
        then plans with :meth:`fallback`)."""
        return True

    def propose(self, rnd: Round) -> Candidates:
        raise NotImplementedError

    def filter(self, cands: Candidates, rnd: Round) -> Candidates:
        return cands

    def sample(self, cands: Candidates, rnd: Round) -> list[Config]:
        raise NotImplementedError

    def fallback(self, rnd: Round) -> list[Config]:
        return []

    # ------------------------------------------------------------------ the explorer's learned state
    def state_bytes(self) -> bytes | None:
        """The explorer's learned state (e.g. agent weights) if a round changed it since the last call."""
        if not self._dirty:
            return None
        self._dirty = False
        return self.explorer.state_bytes()

    def load_state_bytes(self, data: bytes) -> None:
        self.explorer.load_state_bytes(data)

    # ------------------------------------------------------------------ the skeleton
    def replan(self) -> None:
        rnd = Round()
        if self.refit(rnd):
            cands = self.propose(rnd)
            rnd.candidates = len(cands)
            plan = self.sample(self.filter(cands, rnd), rnd)
            self._dirty = True
        else:
            plan = self.fallback(rnd)
        self._plan = plan
        rnd.plan = len(plan)
        self.rounds.append(rnd)
