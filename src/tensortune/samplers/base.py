"""The sampler interface."""

from __future__ import annotations

from typing import Protocol

import numpy as np

from tensortune.space import Config, SearchSpace


class Sampler(Protocol):
    """Selects configs to measure from scored candidates (best first). May return fewer or more
    than ``k`` (adaptive samplers decide the count); never returns a config in ``exclude``."""

    def select(self, candidates: list[tuple[Config, float]], k: int, space: SearchSpace, exclude: set[Config],
               rng: np.random.Generator) -> list[Config]: ...
