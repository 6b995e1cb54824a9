"""Cost-model registry with lazy imports: name -> "module:Class". A new model is a file plus a line here."""

from __future__ import annotations

import importlib
from typing import Any

from tensortune.cost_models.base import CostModel

COST_MODELS: dict[str, str] = {
    "xgb": "tensortune.cost_models.xgb:XGBoostCostModel",  # AutoTVM's, rank or regression loss
    "xgb-ensemble": "tensortune.cost_models.ensemble:BootstrapEnsemble",  # mean and uncertainty (Glimpse)
}


def cost_model_names() -> list[str]:
    return sorted(COST_MODELS)


def make_cost_model(name: str, **options: Any) -> CostModel:
    if name not in COST_MODELS:
        raise ValueError(f"unknown cost model {name!r}; known: {', '.join(cost_model_names())}")
    mod, cls = COST_MODELS[name].split(":")
    return getattr(importlib.import_module(mod), cls)(**options)  # type: ignore[no-any-return]
