"""Named recipes: ``create("autotvm", space, seed)``. A new recipe is one entry here."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tensortune.space import SearchSpace
from tensortune.tuners.strategy import SearchStrategy


def _random(space: SearchSpace, seed: int, **_: Any) -> SearchStrategy:
    from tensortune.tuners.random_search import RandomSearch

    return RandomSearch(space, seed)


def _grid(space: SearchSpace, seed: int, **_: Any) -> SearchStrategy:
    from tensortune.tuners.grid import GridSearch

    return GridSearch(space, seed)


def _autotvm(space: SearchSpace, seed: int, plan_size: int = 64, loss: str = "rank", epsilon: float = 0.05,
             **_: Any) -> SearchStrategy:
    from tensortune.cost_models.xgb import XGBoostCostModel
    from tensortune.explorers.simulated_annealing import SimulatedAnnealing
    from tensortune.samplers.greedy import GreedyEpsilon
    from tensortune.tuners.model_based import ModelBasedStrategy

    return ModelBasedStrategy(space, seed, XGBoostCostModel(loss=loss, seed=seed), SimulatedAnnealing(),
                              GreedyEpsilon(epsilon), plan_size=plan_size, name="autotvm")


RECIPES: dict[str, Callable[..., SearchStrategy]] = {
    "random": _random,
    "grid": _grid,
    "autotvm": _autotvm,
}


def recipe_names() -> list[str]:
    return sorted(RECIPES)


def create(name: str, space: SearchSpace, seed: int = 0, **options: Any) -> SearchStrategy:
    if name not in RECIPES:
        raise ValueError(f"unknown tuner {name!r}; known tuners: {', '.join(recipe_names())}")
    return RECIPES[name](space, seed, **options)
