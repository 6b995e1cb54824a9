"""Operators (conv2d, dense) and model layer tables."""

from tensortune.workloads.conv2d import Conv2d
from tensortune.workloads.dense import Dense
from tensortune.workloads.layer_tables import (
    EVAL_LAYERS,
    MODEL_COUNTS,
    MODELS,
    ModelConvs,
    Workload,
    model_tasks,
    resolve_layer,
    workload_from_key,
)

__all__ = ["EVAL_LAYERS", "MODEL_COUNTS", "MODELS", "Conv2d", "ModelConvs", "Dense", "Workload", "model_tasks", "resolve_layer", "workload_from_key"]
