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


def _model_based(name: str, explorer: str, sampler: str) -> Callable[..., SearchStrategy]:
    def make(space: SearchSpace, seed: int, plan_size: int = 64, loss: str = "rank", epsilon: float = 0.05,
             **_: Any) -> SearchStrategy:
        from tensortune.cost_models.xgb import XGBoostCostModel
        from tensortune.explorers.ppo import PPOExplorer
        from tensortune.explorers.simulated_annealing import SimulatedAnnealing
        from tensortune.samplers.adaptive import AdaptiveSampler
        from tensortune.samplers.greedy import GreedyEpsilon
        from tensortune.tuners.model_based import ModelBasedStrategy

        exp = PPOExplorer(seed=seed) if explorer == "ppo" else SimulatedAnnealing()
        smp = AdaptiveSampler() if sampler == "adaptive" else GreedyEpsilon(epsilon)
        # adaptive sampling clusters a wider candidate set than the plan it returns
        n_cand = 8 * plan_size if sampler == "adaptive" else plan_size
        return ModelBasedStrategy(space, seed, XGBoostCostModel(loss=loss, seed=seed), exp, smp, plan_size=plan_size,
                                  name=name, n_candidates=n_cand)

    return make


def _arco(space: SearchSpace, seed: int, plan_size: int = 64, loss: str = "reg", **_: Any) -> SearchStrategy:
    """ARCO: XGBoost (reg, Table 4) + MAPPO over the knob groups + confidence sampling on the critic."""
    from tensortune.cost_models.xgb import XGBoostCostModel
    from tensortune.explorers.mappo import MAPPOExplorer
    from tensortune.samplers.confidence import ConfidenceSampler
    from tensortune.tuners.model_based import ModelBasedStrategy

    exp = MAPPOExplorer(seed=seed)
    return ModelBasedStrategy(space, seed, XGBoostCostModel(loss=loss, seed=seed), exp, ConfidenceSampler(exp.values),
                              plan_size=plan_size, name="arco", n_candidates=8 * plan_size)


def _arco_hier(space: SearchSpace, seed: int, plan_size: int = 32, **_: Any) -> SearchStrategy:
    """Hierarchical co-design: ARCO's hardware agent over designs, per-layer learned schedule choice inside."""
    from tensortune.tuners.hierarchical import HierarchicalCodesign

    return HierarchicalCodesign(space, seed, plan_size=plan_size)


RECIPES: dict[str, Callable[..., SearchStrategy]] = {
    "random": _random,
    "grid": _grid,
    "autotvm": _model_based("autotvm", "sa", "greedy"),
    "rl": _model_based("rl", "ppo", "greedy"),
    "sa-as": _model_based("sa-as", "sa", "adaptive"),
    "chameleon": _model_based("chameleon", "ppo", "adaptive"),
    "arco": _arco,
    "arco-hier": _arco_hier,
}


def recipe_names() -> list[str]:
    return sorted(RECIPES)


def create(name: str, space: SearchSpace, seed: int = 0, **options: Any) -> SearchStrategy:
    if name not in RECIPES:
        raise ValueError(f"unknown tuner {name!r}; known tuners: {', '.join(recipe_names())}")
    return RECIPES[name](space, seed, **options)
