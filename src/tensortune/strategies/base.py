"""The ask/tell interface every algorithm implements; the tuning loop owns everything else."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.space import Config, SearchSpace


@dataclass
class Round:
    """What one round of a strategy that plans rounds did; a field is None where the round had no
    such stage."""

    steps: int | None = None  # explorer search steps (batches of walker moves)
    queries: int | None = None  # configurations the cost model scored
    candidates: int = 0  # scored candidates the explorer proposed
    rejected: int | None = None  # candidates the validity filter removed
    pool: int | None = None  # candidates compiled for hidden features (ML2Tuner)
    compiled: int | None = None  # new compilations for hidden features (ML2Tuner)
    plan: int = 0  # configurations chosen for measurement
    probes: int | None = None  # of them, configs one knob away from the incumbent (``samplers.probes``)
    explored: int | None = None  # random configs instead of the model's plan: the prior was discredited


class SearchStrategy(ABC):
    """A state machine over one space. ``ask`` proposes unmeasured configs (possibly fewer or more
    than asked for; an empty list means the space is exhausted); ``tell`` reports their outcomes as
    throughputs (FLOP/s, 0 for a failed measurement). Replaying every stored outcome through ``tell``
    restores the state after a restart."""

    name = ""

    def __init__(self, space: SearchSpace, seed: int = 0) -> None:
        self.space = space
        self.seed = seed
        self.rng = np.random.default_rng(seed)
        self.visited: set[Config] = set()
        self.xs: list[Config] = []
        self.ys: list[float] = []
        self.rounds: list[Round] = []  # one record per planned round (strategies that plan rounds)

    @abstractmethod
    def ask(self, n: int) -> list[Config]: ...

    # per-round figures as lists (the papers' step counts, plan sizes, ...), read off the round records
    @property
    def search_steps(self) -> list[int]:
        return [r.steps for r in self.rounds if r.steps is not None]

    @property
    def model_queries(self) -> list[int]:
        return [r.queries for r in self.rounds if r.queries is not None]

    @property
    def plan_lengths(self) -> list[int]:
        return [r.plan for r in self.rounds]

    @property
    def rejected_by_v(self) -> list[int]:
        return [r.rejected for r in self.rounds if r.rejected is not None]

    @property
    def pool_sizes(self) -> list[int]:
        return [r.pool for r in self.rounds if r.pool is not None]

    @property
    def compiled_per_round(self) -> list[int]:
        return [r.compiled for r in self.rounds if r.compiled is not None]

    def tell(self, configs: list[Config], throughputs: list[float]) -> None:
        for c, y in zip(configs, throughputs, strict=True):
            self.visited.add(c)
            self.xs.append(c)
            self.ys.append(float(y))

    def plan_then_random(self, plan: list[Config], n: int, out: list[Config] | None = None) -> list[Config]:
        """Up to ``n`` configs: ``out``, then unmeasured ones popped from the front of ``plan``, then random
        unmeasured valid ones (the usual ``ask`` of a strategy that plans rounds)."""
        out = list(out or [])
        while plan and len(out) < n:
            c = plan.pop(0)
            if c not in self.visited and c not in out:
                out.append(c)
        if len(out) < n:
            out += self.space.sample(n - len(out), self.rng, exclude=self.visited | set(out))
        return out

    def tell_extra(self, configs: list[Config], extras: list[dict[str, Any]]) -> None:
        """The measurer's details of each outcome (``MeasureResult.extra``), delivered just before
        :meth:`tell`, live and on replay. Most strategies ignore them."""
        return None

    def state_bytes(self) -> bytes | None:
        """Learned state worth checkpointing (None: nothing new). Replay restores everything else."""
        return None

    def load_state_bytes(self, data: bytes) -> None:
        """Restore what :meth:`state_bytes` returned, before the records are replayed."""
        return None

    def restored(self, n_records: int) -> None:
        """Called after a replay of ``n_records`` stored outcomes; reseeds so a resumed run does not
        repeat the random draws of the first session."""
        self.rng = np.random.default_rng([self.seed, n_records])
