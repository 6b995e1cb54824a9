"""Operators (conv2d, dense) and model layer tables."""

from tensortune.workloads.conv2d import Conv2d
from tensortune.workloads.dense import Dense
from tensortune.workloads.models import (
    EVAL_LAYERS,
    MODELS,
    Workload,
    model_tasks,
    resolve_layer,
    workload_from_key,
)

__all__ = ["EVAL_LAYERS", "MODELS", "Conv2d", "Dense", "Workload", "model_tasks", "resolve_layer", "workload_from_key"]
