"""ARCO's confidence sampling (Algorithm 2 of the paper).

The critic's value of every candidate is turned into a distribution by a softmax; ``k`` configurations
are drawn from it (without replacement); those whose value exceeds the median value of all candidates
are kept (high confidence), and the low-confidence ones are replaced by one synthesized configuration,
each knob at its most frequent value among the drawn configurations (Chameleon's mode synthesis). So a
round measures at most ``k`` and usually fewer configurations.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from tensortune.samplers.adaptive import mode_config
from tensortune.space import Config, SearchSpace

ValueFn = Callable[[SearchSpace, np.ndarray], np.ndarray]


class ConfidenceSampler:
    candidate_factor = 8  # draws from 8 plans of candidates, as adaptive sampling does

    def __init__(self, value_fn: ValueFn | None = None, temperature: float = 1.0) -> None:
        """``value_fn(space, index_rows)``: the critic; without one, the candidates' scores are used."""
        if temperature <= 0:
            raise ValueError("the softmax temperature must be positive")
        self.value_fn = value_fn
        self.temperature = temperature
        self.last_kept = 0
        self.last_synthesized = 0

    def select(self, candidates: list[tuple[Config, float]], k: int, space: SearchSpace, exclude: set[Config],
               rng: np.random.Generator) -> list[Config]:
        cands = [c for c, _ in candidates if c not in exclude]
        if not cands:
            return []
        if self.value_fn is not None:
            values = np.asarray(self.value_fn(space, space.indices(cands)), dtype=np.float64)
        else:
            by_cfg = dict(candidates)
            values = np.array([by_cfg[c] for c in cands], dtype=np.float64)
        z = (values - values.max()) / self.temperature
        p = np.exp(z)
        p /= p.sum()
        n = min(k, len(cands), int(np.count_nonzero(p)))
        drawn = rng.choice(len(cands), size=n, replace=False, p=p)
        threshold = float(np.median(values))
        keep = [cands[i] for i in drawn if values[i] > threshold]
        out = list(dict.fromkeys(keep))
        self.last_kept = len(out)
        self.last_synthesized = 0
        if len(out) < n:
            synth = mode_config([cands[i] for i in drawn])
            if synth not in exclude and synth not in out and space.is_valid(synth):
                out.append(synth)
                self.last_synthesized = 1
        return out
