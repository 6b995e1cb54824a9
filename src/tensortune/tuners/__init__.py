"""Tuning: the one loop (``Tuner``) and the named recipes it runs."""

from tensortune.tuners.loop import Budget, Tuner, TuneSummary
from tensortune.tuners.recipes import create, recipe_names
from tensortune.tuners.strategy import SearchStrategy

__all__ = ["Budget", "SearchStrategy", "TuneSummary", "Tuner", "create", "recipe_names"]
