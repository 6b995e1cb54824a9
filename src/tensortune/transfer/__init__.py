"""Transfer learning: features that mean the same across shapes, a cost model fitted on other tasks'
records, and schedule transfer (the best configs of similar tasks measured first)."""

from tensortune.transfer.features import TransferFeatures, shape_features
from tensortune.transfer.prior import PriorCostModel, TransferPrior

__all__ = ["PriorCostModel", "TransferFeatures", "TransferPrior", "shape_features"]
