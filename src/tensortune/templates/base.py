"""The template interface: a search space per workload and a schedule per config."""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

import numpy as np

from tensortune.space import SearchSpace


class InstantiationError(Exception):
    """The template cannot produce a schedule for this config (AutoTVM's INSTANTIATION_ERROR)."""


class Template(ABC):
    """Maps (workload, knob values) to a scheduled TVM ``IRModule`` for one target kind.

    A template may choose its own argument layouts (for example a weight packed into blocks); it then
    converts the workload's reference inputs with :meth:`prepare_inputs` so the runner can check the
    kernel's output against the workload's NumPy reference.
    """

    name: str = ""
    target_kind: str = "llvm"
    ops: tuple[str, ...] = ()
    # the split-knob factors whose product is the register block (knob name -> factor positions): transfer
    # keeps that product when it maps another shape's config onto this template's space
    register_block: dict[str, tuple[int, ...]] = {}
    # the split-knob factor that is the vector of lanes (knob name, factor position), or None: the factor sized by
    # the hardware's vector width, which schedule transfer tries doubled and halved (``TransferFeatures.lane_variants``)
    vector_lanes: tuple[str, int] | None = None
    # the two split knobs whose register-block factors are the register tile's rows and columns of one output plane
    # (a convolution's output height and width), or None: schedule transfer tries the best mapped config with them
    # exchanged where the mapped configs all put the larger tile on one axis (``TransferFeatures.axis_variant``)
    spatial_axes: tuple[str, str] | None = None

    @abstractmethod
    def space(self, workload: Any) -> SearchSpace: ...

    def space_for(self, workload: Any, target: dict[str, Any] | None) -> SearchSpace:
        """The space for a workload on a target; templates whose space depends on the target (a
        design's parameters, budgets) override this."""
        return self.space(workload)

    @abstractmethod
    def instantiate(self, workload: Any, values: dict[str, Any]) -> Any:
        """Return a scheduled ``tvm.IRModule`` with a ``main`` function (args: inputs..., output)."""

    def prepare_inputs(self, workload: Any, values: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        return inputs

    def supports(self, workload: Any) -> bool:
        return getattr(workload, "op", None) in self.ops
