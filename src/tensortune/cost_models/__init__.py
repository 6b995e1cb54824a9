"""Cost models: predict how good a configuration is from its features, without hardware."""

from tensortune.cost_models.base import CostModel
from tensortune.cost_models.xgb import XGBoostCostModel

__all__ = ["CostModel", "XGBoostCostModel"]
