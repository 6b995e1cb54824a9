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


def _model_based(name: str, explorer: str, sampler: str, validity: bool = False) -> Callable[..., SearchStrategy]:
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
        from tensortune.cost_models.validity import ValidityModel

        return ModelBasedStrategy(space, seed, XGBoostCostModel(loss=loss, seed=seed), exp, smp, plan_size=plan_size,
                                  name=name + ("+v" if validity else ""), n_candidates=n_cand,
                                  validity=ValidityModel(seed=seed) if validity else None)

    return make


def _arco(space: SearchSpace, seed: int, plan_size: int = 64, loss: str = "reg", validity: bool = False,
          **_: Any) -> SearchStrategy:
    """ARCO: XGBoost (reg, Table 4) + MAPPO over the knob groups + confidence sampling on the critic."""
    from tensortune.cost_models.validity import ValidityModel
    from tensortune.cost_models.xgb import XGBoostCostModel
    from tensortune.explorers.mappo import MAPPOExplorer
    from tensortune.samplers.confidence import ConfidenceSampler
    from tensortune.tuners.model_based import ModelBasedStrategy

    exp = MAPPOExplorer(seed=seed)
    return ModelBasedStrategy(space, seed, XGBoostCostModel(loss=loss, seed=seed), exp, ConfidenceSampler(exp.values),
                              plan_size=plan_size, name="arco" + ("+v" if validity else ""), n_candidates=8 * plan_size,
                              validity=ValidityModel(seed=seed) if validity else None)


def _ml2tuner(space: SearchSpace, seed: int, task: Any = None, n: int = 10, alpha: float = 1.0, **_: Any
              ) -> SearchStrategy:
    """ML2Tuner: V filters, P ranks (alpha+1)N candidates, A (with hidden features from compiling them) picks N.
    N defaults to the paper's 10 (``plan_size`` does not change it: the paper's N is part of the method)."""
    if task is None:
        raise ValueError("ml2tuner compiles candidates for hidden features, so it needs the task (create(..., task=task))")
    from tensortune.features import HiddenFeatures
    from tensortune.tuners.ml2tuner import ML2Tuner

    return ML2Tuner(space, seed, HiddenFeatures(task), n=n, alpha=alpha)


def _arco_hier(space: SearchSpace, seed: int, plan_size: int = 32, **_: Any) -> SearchStrategy:
    """Hierarchical co-design: ARCO's hardware agent over designs, per-layer learned schedule choice inside."""
    from tensortune.tuners.hierarchical import HierarchicalCodesign

    return HierarchicalCodesign(space, seed, plan_size=plan_size)


# explorer and sampler of the model-based recipes (XGBoost cost model)
MODEL_BASED = {"autotvm": ("sa", "greedy"), "rl": ("ppo", "greedy"), "sa-as": ("sa", "adaptive"),
               "chameleon": ("ppo", "adaptive")}

RECIPES: dict[str, Callable[..., SearchStrategy]] = {
    "random": _random,
    "grid": _grid,
    **{name: _model_based(name, e, s) for name, (e, s) in MODEL_BASED.items()},
    "arco": _arco,
    "arco-hier": _arco_hier,
    "ml2tuner": _ml2tuner,
}
# every model-based recipe with ML2Tuner's validity model V as a filter stage: "chameleon+v"
RECIPES.update({name + "+v": _model_based(name, e, s, validity=True) for name, (e, s) in MODEL_BASED.items()})
RECIPES["arco+v"] = lambda space, seed, **kw: _arco(space, seed, **{**kw, "validity": True})


def recipe_names() -> list[str]:
    return sorted(RECIPES)


def create(name: str, space: SearchSpace, seed: int = 0, **options: Any) -> SearchStrategy:
    if name not in RECIPES:
        raise ValueError(f"unknown tuner {name!r}; known tuners: {', '.join(recipe_names())}")
    return RECIPES[name](space, seed, **options)
