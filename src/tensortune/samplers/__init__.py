"""Samplers: pick the few candidates worth measuring."""

from tensortune.samplers.adaptive import AdaptiveSampler
from tensortune.samplers.base import Sampler
from tensortune.samplers.greedy import GreedyEpsilon

__all__ = ["AdaptiveSampler", "GreedyEpsilon", "Sampler"]
