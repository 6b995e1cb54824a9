"""Template registry with lazy imports: name -> "module:Class"."""

from __future__ import annotations

import importlib
from functools import cache

from tensortune.templates.base import Template

_TEMPLATES: dict[str, str] = {
    "conv2d_nchw.llvm": "tensortune.templates.cpu_conv2d:CpuConv2d",
    "conv2d_nchw.llvm-small": "tensortune.templates.cpu_conv2d:CpuConv2dSmall",
    "dense.llvm": "tensortune.templates.cpu_dense:CpuDense",
    "conv2d_nchw.cuda": "tensortune.templates.cuda_conv2d:CudaConv2d",
    "faulty_dense.llvm": "tensortune.templates.faulty:FaultyDense",
    "conv2d_nchw.vta-sim": "tensortune.templates.vta_conv2d:VtaConv2d",
    "conv2d_codesign.vta-sim": "tensortune.templates.vta_conv2d:VtaConv2dCodesign",
    "model_codesign.vta-sim": "tensortune.templates.vta_conv2d:VtaModelCodesign",
    "ms-space.llvm": "tensortune.templates.tir_schedules:MsSpace",
    "conv2d_nchw_fused.llvm": "tensortune.templates.tir_schedules:FusedConv2d",
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
