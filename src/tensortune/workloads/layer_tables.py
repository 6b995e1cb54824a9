"""Layer tables of AlexNet, VGG-16 and ResNet-18 (unique conv tasks, batch 1, torchvision shapes),
and the evaluation layers L1..L8 of shared/notes/layers.md."""

from __future__ import annotations

import re
from dataclasses import dataclass

from tensortune.workloads.conv2d import Conv2d
from tensortune.workloads.dense import Dense


def _c(c: int, hw: int, k: int, kernel: int, stride: int, pad: int) -> Conv2d:
    return Conv2d.make(1, c, hw, hw, k, kernel, stride, pad)


MODELS: dict[str, list[Conv2d]] = {
    "alexnet": [
        _c(3, 224, 64, 11, 4, 2),
        _c(64, 27, 192, 5, 1, 2),
        _c(192, 13, 384, 3, 1, 1),
        _c(384, 13, 256, 3, 1, 1),
        _c(256, 13, 256, 3, 1, 1),
    ],
    "vgg16": [
        _c(3, 224, 64, 3, 1, 1),
        _c(64, 224, 64, 3, 1, 1),
        _c(64, 112, 128, 3, 1, 1),
        _c(128, 112, 128, 3, 1, 1),
        _c(128, 56, 256, 3, 1, 1),
        _c(256, 56, 256, 3, 1, 1),
        _c(256, 28, 512, 3, 1, 1),
        _c(512, 28, 512, 3, 1, 1),
        _c(512, 14, 512, 3, 1, 1),
    ],
    "resnet18": [
        _c(3, 224, 64, 7, 2, 3),
        _c(64, 56, 64, 3, 1, 1),
        _c(64, 56, 128, 3, 2, 1),
        _c(64, 56, 128, 1, 2, 0),
        _c(128, 28, 128, 3, 1, 1),
        _c(128, 28, 256, 3, 2, 1),
        _c(128, 28, 256, 1, 2, 0),
        _c(256, 14, 256, 3, 1, 1),
        _c(256, 14, 512, 3, 2, 1),
        _c(256, 14, 512, 1, 2, 0),
        _c(512, 7, 512, 3, 1, 1),
    ],
}

# how often each unique conv task occurs in the model (torchvision definitions)
MODEL_COUNTS: dict[str, tuple[int, ...]] = {
    "alexnet": (1, 1, 1, 1, 1),
    "vgg16": (1, 1, 1, 1, 1, 2, 1, 2, 3),
    "resnet18": (1, 4, 1, 1, 3, 1, 1, 3, 1, 1, 3),
}


@dataclass(frozen=True)
class ModelConvs:
    """A whole model's conv layers as one workload (e.g. for co-design: one chip runs every layer).

    ``counts[i]`` is how often ``layers[i]`` occurs; the model's time is the count-weighted sum.
    """

    name: str
    layers: tuple[Conv2d, ...]
    counts: tuple[int, ...]

    op = "conv_model"

    @classmethod
    def of(cls, model: str) -> ModelConvs:
        if model not in MODELS:
            raise ValueError(f"unknown model {model!r}; known models: {', '.join(sorted(MODELS))}")
        return cls(model, tuple(MODELS[model]), MODEL_COUNTS[model])

    @property
    def key(self) -> str:
        return f"model_convs({self.name})"

    @property
    def flops(self) -> int:
        return sum(c * layer.flops for c, layer in zip(self.counts, self.layers, strict=True))

    def describe(self) -> str:
        return f"{self.name}: {sum(self.counts)} conv layers ({len(self.layers)} unique)"


Workload = Conv2d | Dense | ModelConvs

# name -> (model, 1-based task index)
EVAL_LAYERS: dict[str, tuple[str, int]] = {
    "L1": ("alexnet", 1), "L2": ("alexnet", 4),
    "L3": ("vgg16", 1), "L4": ("vgg16", 2), "L5": ("vgg16", 4),
    "L6": ("resnet18", 6), "L7": ("resnet18", 9), "L8": ("resnet18", 11),
}


def model_tasks(model: str, tasks: list[int] | None = None) -> list[tuple[str, Conv2d]]:
    """(name, workload) of a model's conv tasks, optionally only the given 1-based task numbers."""
    if model not in MODELS:
        raise ValueError(f"unknown model {model!r}; known models: {', '.join(sorted(MODELS))}")
    layers = MODELS[model]
    picked = tasks or list(range(1, len(layers) + 1))
    out = []
    for t in picked:
        if not 1 <= t <= len(layers):
            raise ValueError(f"model {model!r} has conv tasks 1..{len(layers)}, not {t}")
        out.append((f"{model}:{t}", layers[t - 1]))
    return out


def resolve_layer(name: str) -> tuple[str, Workload]:
    """An evaluation layer (``L6``) or a model task (``resnet18:6``) by name."""
    key = name.strip()
    if key.upper() in EVAL_LAYERS:
        model, t = EVAL_LAYERS[key.upper()]
        return key.upper(), MODELS[model][t - 1]
    m = re.fullmatch(r"([a-z0-9]+):(\d+)", key.lower())
    if m:
        return model_tasks(m.group(1), [int(m.group(2))])[0]
    raise ValueError(f"unknown layer {name!r}; use L1..L8 or model:task such as resnet18:6")


_CONV_RE = re.compile(r"conv2d_nchw\(n=(\d+),c=(\d+),h=(\d+),w=(\d+),k=(\d+),kernel=(\d+)x(\d+),"
                      r"stride=(\d+)x(\d+),pad=(\d+)x(\d+),dil=(\d+)x(\d+)\)")
_DENSE_RE = re.compile(r"dense\(m=(\d+),k=(\d+),n=(\d+)\)")
_MODEL_RE = re.compile(r"model_convs\(([a-z0-9]+)\)")


def workload_from_key(key: str) -> Workload:
    """Inverse of ``Workload.key``."""
    m = _CONV_RE.fullmatch(key)
    if m:
        v = [int(x) for x in m.groups()]
        return Conv2d.make(v[0], v[1], v[2], v[3], v[4], (v[5], v[6]), (v[7], v[8]), (v[9], v[10]), (v[11], v[12]))
    m = _DENSE_RE.fullmatch(key)
    if m:
        return Dense.make(*(int(x) for x in m.groups()))
    m = _MODEL_RE.fullmatch(key)
    if m:
        return ModelConvs.of(m.group(1))
    if key.startswith("tir:"):
        from tensortune.workloads.tir import TirWorkload

        return TirWorkload(key[4:])  # type: ignore[return-value]
    raise ValueError(f"not a workload key: {key!r}")
