"""Conv2d search spaces on the VTA-like accelerator target (``vta-sim``).

Three templates share one schedule (``tensortune.accel.vta``):

- ``conv2d_nchw.vta-sim``: software knobs only, on the design given by the target (VTA's default);
  what AutoTVM, Chameleon and ML2Tuner tune.
- ``conv2d_codesign.vta-sim``: hardware knobs (GEMM shape, buffer sizes, bus width) and software knobs
  of one layer, the per-layer co-design of ARCO.
- ``model_codesign.vta-sim``: one hardware design shared by every conv layer of a model plus each
  layer's software knobs; the objective is the model's total time (the realistic case: one chip runs
  every layer).

Knob groups follow ARCO's agents (Table 2 of the paper): ``hardware`` holds the design knobs and the
tiles across batch, input and output channels (which map onto BATCH, BLOCK_IN and BLOCK_OUT),
``scheduling`` the virtual threads, ``mapping`` the spatial tiles.

Tiles of b/ci/co count blocks, so their extents depend on BATCH/BLOCK_IN/BLOCK_OUT; their options are
the divisors of every possible block count, and a structural constraint keeps the exact divisors of the
chosen design's count (AutoTVM's ``define_split`` only makes exact factors). Resource limits (buffer
overflows, micro-op and encoding limits) are *not* constraints of the space: as in TVM's VTA flow they
surface when the configuration is compiled, so the measurer reports them and validity models can learn
them. Area and memory budgets are constraints marked ``budget`` with a penalty for search agents.

Target dict: ``{"kind": "vta-sim", "hw": {...VtaHardware fields...}, "area_max_mm2": float,
"memory_max_bytes": int, "hw_options": {knob: [values]}}``; all keys but ``kind`` are optional. The
budgets default to the area and memory of the target's design (co-design may move resources around
but not grow the chip).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.accel.vta import HW_KNOBS, ConvShape, VtaHardware, design_area, design_memory, evaluate_one
from tensortune.space import Constraint, SearchSpace
from tensortune.space.knobs import OptionKnob, _divisors
from tensortune.templates.base import Template
from tensortune.workloads.conv2d import Conv2d
from tensortune.workloads.layer_tables import ModelConvs

DEFAULT_HW_OPTIONS: dict[str, tuple[int, ...]] = {
    "BATCH": (1, 2),
    "BLOCK_IN": (8, 16, 32, 64),
    "BLOCK_OUT": (8, 16, 32, 64),
    "LOG_INP_BUFF_SIZE": (14, 15, 16),
    "LOG_WGT_BUFF_SIZE": (17, 18, 19),
    "LOG_ACC_BUFF_SIZE": (16, 17, 18),
    "LOG_UOP_BUFF_SIZE": (14, 15, 16),
    "BUS_WIDTH": (64, 128),
}
SW_GROUPS = {"tile_b": "hardware", "tile_ci": "hardware", "tile_co": "hardware", "h_nthread": "scheduling",
             "oc_nthread": "scheduling", "tile_h": "mapping", "tile_w": "mapping"}


def target_hardware(target: dict[str, Any] | None) -> VtaHardware:
    return VtaHardware.from_dict(dict((target or {}).get("hw", {})))


def _union_divisors(extent: int, blocks: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(sorted({d for b in blocks for d in _divisors(-(-extent // b))}))


def _sw_knobs(layer: ConvShape, hw_opts: dict[str, tuple[int, ...]], prefix: str = "") -> list[Any]:
    opts = {
        "tile_b": _union_divisors(layer.N, hw_opts["BATCH"]),
        "tile_h": tuple(_divisors(layer.OH)),
        "tile_w": tuple(_divisors(layer.OW)),
        "tile_ci": _union_divisors(layer.C, hw_opts["BLOCK_IN"]),
        "tile_co": _union_divisors(layer.K, hw_opts["BLOCK_OUT"]),
        "h_nthread": (1, 2),
        "oc_nthread": (1, 2),
    }
    return [OptionKnob(prefix + n, v, group=SW_GROUPS[n]) for n, v in opts.items()]


def _structure(layer: ConvShape, prefix: str, fixed: VtaHardware | None) -> Constraint:
    def get(v: dict[str, Any], name: str) -> Any:
        return getattr(fixed, name) if fixed is not None else v[name]

    def rule(v: dict[str, Any]) -> Any:
        nb = -(-layer.N // get(v, "BATCH"))
        nci = -(-layer.C // get(v, "BLOCK_IN"))
        nco = -(-layer.K // get(v, "BLOCK_OUT"))
        tco = v[prefix + "tile_co"]
        return ((nb % v[prefix + "tile_b"] == 0) & (nci % v[prefix + "tile_ci"] == 0) & (nco % tco == 0)
                & (v[prefix + "tile_h"] % v[prefix + "h_nthread"] == 0) & (tco % v[prefix + "oc_nthread"] == 0))

    reads = tuple(prefix + k for k in ("tile_b", "tile_ci", "tile_co", "tile_h", "h_nthread", "oc_nthread"))
    if fixed is None:
        reads += ("BATCH", "BLOCK_IN", "BLOCK_OUT")
    return Constraint(f"{prefix}tiles divide the blocked loops", lambda v: bool(rule(v)), vectorized=rule, knobs=reads)


def _budgets(target: dict[str, Any] | None, base: VtaHardware) -> tuple[list[Constraint], Any]:
    t = target or {}
    area_max = float(t.get("area_max_mm2", base.area_mm2))
    mem_max = float(t.get("memory_max_bytes", base.sram_bytes))
    if area_max <= 0 or mem_max <= 0:
        raise ValueError("VTA area and memory budgets must be positive")

    def area(v: dict[str, Any]) -> Any:
        return design_area(v) <= area_max * (1 + 1e-9)

    def memory(v: dict[str, Any]) -> Any:
        return design_memory(v) <= mem_max

    def penalty(v: dict[str, Any]) -> np.ndarray:
        """Relative excess over each budget (ARCO's max(0, x - x_max), made unit-free)."""
        return (np.maximum(0.0, design_area(v) / area_max - 1.0) + np.maximum(0.0, design_memory(v) / mem_max - 1.0))

    cons = [Constraint(f"area <= {area_max:.3f} mm^2", lambda v: bool(area(v)), vectorized=area, budget=True,
                       knobs=HW_KNOBS),
            Constraint(f"on-chip memory <= {int(mem_max)} B", lambda v: bool(memory(v)), vectorized=memory, budget=True,
                       knobs=HW_KNOBS)]
    return cons, penalty


def _hw_knobs(target: dict[str, Any] | None) -> list[Any]:
    opts = dict(DEFAULT_HW_OPTIONS)
    for k, v in dict((target or {}).get("hw_options", {})).items():
        if k not in opts:
            raise ValueError(f"unknown VTA hardware knob {k!r}; known: {', '.join(HW_KNOBS)}")
        opts[k] = tuple(int(x) for x in v)
    return [OptionKnob(k, opts[k], group="hardware", hardware=True) for k in HW_KNOBS]


class VtaConv2d(Template):
    """Software knobs of one conv layer on a fixed design."""

    name = "conv2d_nchw.vta-sim"
    target_kind = "vta-sim"
    ops = ("conv2d_nchw",)

    def space(self, workload: Conv2d) -> SearchSpace:
        return self.space_for(workload, None)

    def space_for(self, workload: Any, target: dict[str, Any] | None) -> SearchSpace:
        hw = target_hardware(target)
        layer = ConvShape.of(workload)
        opts = {k: (v,) for k, v in hw.knob_values().items()}
        return SearchSpace(_sw_knobs(layer, opts), [_structure(layer, "", hw)])

    def decode(self, workload: Any, values: dict[str, Any], target: dict[str, Any] | None
               ) -> tuple[VtaHardware, list[tuple[ConvShape, int, dict[str, int]]]]:
        """(design, [(layer, count, schedule)]) of a configuration."""
        return target_hardware(target), [(ConvShape.of(workload), 1, {k: int(v) for k, v in values.items()})]

    def instantiate(self, workload: Any, values: dict[str, Any], target: dict[str, Any] | None = None) -> Any:
        """The compile step of this backend: what the VTA compiler derives for each layer (tile
        footprints, micro-ops, instruction and transfer counts, validity)."""
        hw, layers = self.decode(workload, values, target)
        hv = hw.knob_values()
        return [evaluate_one(layer, {**hv, **sw}) for layer, _, sw in layers]


class VtaConv2dCodesign(VtaConv2d):
    """Hardware and software knobs of one conv layer (ARCO's per-layer co-design)."""

    name = "conv2d_codesign.vta-sim"

    def space_for(self, workload: Any, target: dict[str, Any] | None) -> SearchSpace:
        layer = ConvShape.of(workload)
        hwk = _hw_knobs(target)
        opts = {k.name: k.options for k in hwk}
        budget_cons, penalty = _budgets(target, target_hardware(target))
        return SearchSpace(hwk + _sw_knobs(layer, opts), [_structure(layer, "", None), *budget_cons], penalty=penalty)

    def decode(self, workload: Any, values: dict[str, Any], target: dict[str, Any] | None
               ) -> tuple[VtaHardware, list[tuple[ConvShape, int, dict[str, int]]]]:
        base = target_hardware(target)
        hw = VtaHardware(**{k: int(values[k]) for k in HW_KNOBS}, freq_mhz=base.freq_mhz)
        sw = {k: int(v) for k, v in values.items() if k not in HW_KNOBS}
        return hw, [(ConvShape.of(workload), 1, sw)]


class VtaModelCodesign(VtaConv2d):
    """One design for all conv layers of a model, plus every layer's software knobs (``L3.tile_h``)."""

    name = "model_codesign.vta-sim"
    ops = ("conv_model",)

    def space_for(self, workload: Any, target: dict[str, Any] | None) -> SearchSpace:
        if not isinstance(workload, ModelConvs):
            raise ValueError("model_codesign.vta-sim tunes a whole model (--model NAME --codesign model)")
        hwk = _hw_knobs(target)
        opts = {k.name: k.options for k in hwk}
        knobs, cons = list(hwk), []
        for i, wl in enumerate(workload.layers, 1):
            layer = ConvShape.of(wl)
            knobs += _sw_knobs(layer, opts, prefix=f"L{i}.")
            cons.append(_structure(layer, f"L{i}.", None))
        budget_cons, penalty = _budgets(target, target_hardware(target))
        return SearchSpace(knobs, cons + budget_cons, penalty=penalty)

    def decode(self, workload: Any, values: dict[str, Any], target: dict[str, Any] | None
               ) -> tuple[VtaHardware, list[tuple[ConvShape, int, dict[str, int]]]]:
        base = target_hardware(target)
        hw = VtaHardware(**{k: int(values[k]) for k in HW_KNOBS}, freq_mhz=base.freq_mhz)
        out = []
        for i, (wl, count) in enumerate(zip(workload.layers, workload.counts, strict=True), 1):
            sw = {k.split(".", 1)[1]: int(v) for k, v in values.items() if k.startswith(f"L{i}.")}
            out.append((ConvShape.of(wl), count, sw))
        return hw, out
