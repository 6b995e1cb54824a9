"""Explorers: walk the space guided by a score function (a cost model), no hardware."""

from tensortune.explorers.base import Explorer, ScoreFn
from tensortune.explorers.ppo import PPOExplorer
from tensortune.explorers.simulated_annealing import SimulatedAnnealing

__all__ = ["Explorer", "PPOExplorer", "ScoreFn", "SimulatedAnnealing"]
