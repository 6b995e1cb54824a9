"""Sampler registry with lazy imports: name -> "module:Class". A new sampler is a file plus a line here.

A sampler class may say how many scored candidates it wants per config of a plan
(``candidate_factor``, default 1): adaptive samplers cluster a wider pool than the plan they return."""

from __future__ import annotations

import importlib
from typing import Any

from tensortune.samplers.base import Sampler

SAMPLERS: dict[str, str] = {
    "greedy": "tensortune.samplers.greedy:GreedyEpsilon",  # AutoTVM: top-k with epsilon random
    "adaptive": "tensortune.samplers.adaptive:AdaptiveSampler",  # Chameleon: k-means + mode synthesis
    "confidence": "tensortune.samplers.confidence:ConfidenceSampler",  # ARCO: softmax on the critic's values
}


def sampler_names() -> list[str]:
    return sorted(SAMPLERS)


def sampler_class(name: str) -> type:
    if name not in SAMPLERS:
        raise ValueError(f"unknown sampler {name!r}; known: {', '.join(sampler_names())}")
    mod, cls = SAMPLERS[name].split(":")
    return getattr(importlib.import_module(mod), cls)  # type: ignore[no-any-return]


def make_sampler(name: str, **options: Any) -> Sampler:
    return sampler_class(name)(**options)  # type: ignore[no-any-return]


def candidate_factor(name: str) -> int:
    return int(getattr(sampler_class(name), "candidate_factor", 1))
