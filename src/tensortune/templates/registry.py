"""Template registry with lazy imports: name -> "module:Class"."""

from __future__ import annotations

import importlib
from functools import cache
from typing import Any

from tensortune.core.targets import target_key
from tensortune.core.values import Task
from tensortune.templates.base import Template

_TEMPLATES: dict[str, str] = {
    "conv2d_nchw.llvm": "tensortune.templates.cpu_conv2d:CpuConv2d",
    "conv2d_nchw.llvm-small": "tensortune.templates.cpu_conv2d:CpuConv2dSmall",
    "dense.llvm": "tensortune.templates.cpu_dense:CpuDense",
    "conv2d_nchw.cuda": "tensortune.templates.cuda_conv2d:CudaConv2d",
    "conv2d_nchw.cuda-small": "tensortune.templates.cuda_conv2d:CudaConv2dSmall",
    "faulty_dense.llvm": "tensortune.templates.faulty:FaultyDense",
    "conv2d_nchw.vta-sim": "tensortune.templates.vta_conv2d:VtaConv2d",
    "conv2d_codesign.vta-sim": "tensortune.templates.vta_conv2d:VtaConv2dCodesign",
    "model_codesign.vta-sim": "tensortune.templates.vta_conv2d:VtaModelCodesign",
    "ms-space.llvm": "tensortune.templates.tir_schedules:MsSpace",
    "copy.llvm": "tensortune.templates.cpu_injective:CpuInjective",
    "max_pool.llvm": "tensortune.templates.cpu_pool:CpuMaxPool",
    "dense_fused.llvm": "tensortune.templates.cpu_dense_fused:CpuDenseFused",
    "conv2d_nchw_fused.llvm": "tensortune.templates.tir_schedules:FusedConv2d",
    "conv2d_nchw_fused.llvm-small": "tensortune.templates.tir_schedules:FusedConv2dReduced",
    "conv2d_nchwc_fused.llvm": "tensortune.templates.tir_schedules:FusedConv2dBlocked",
    "conv2d_nchwc_fused.llvm-small": "tensortune.templates.tir_schedules:FusedConv2dBlockedReduced",
    "conv2d_nchwc_fused.llvm-tails": "tensortune.templates.tir_schedules:FusedConv2dBlockedTails",
    "conv2d_winograd_fused.llvm": "tensortune.templates.cpu_winograd:WinogradConv2d",
}


def template_names() -> list[str]:
    return sorted(_TEMPLATES)


@cache
def get_template(name: str) -> Template:
    if name not in _TEMPLATES:
        raise ValueError(f"unknown template {name!r}; known: {', '.join(template_names())}")
    mod, cls = _TEMPLATES[name].split(":")
    return getattr(importlib.import_module(mod), cls)()


def default_template(op: str, target_kind: str) -> str:
    name = f"{op}.{target_kind}"
    if name not in _TEMPLATES:
        raise ValueError(f"no template for operator {op!r} on target kind {target_kind!r}")
    return name


def make_task(workload: Any, template: str, target: dict[str, Any], name: str = "") -> Task:
    """A task with its template's search space for the workload and target."""
    space = get_template(template).space_for(workload, target)
    return Task(workload, template, target_key(target), name or workload.key, space)


def with_space(task: Task) -> Task:
    """A task rebuilt from its key fields (e.g. read back from a table) with its search space."""
    return make_task(task.workload, task.template, task.target, task.name)
