"""Tuning: the one loop (``Tuner``) and the named recipes it runs."""

from tensortune.strategies.base import SearchStrategy
from tensortune.tuners.loop import Budget, Tuner, TuneSummary
from tensortune.tuners.recipes import create, recipe_names

__all__ = ["Budget", "SearchStrategy", "TuneSummary", "Tuner", "create", "recipe_names"]
