"""Samplers: pick the few candidates worth measuring."""

from tensortune.samplers.base import Sampler
from tensortune.samplers.greedy import GreedyEpsilon

__all__ = ["GreedyEpsilon", "Sampler"]
