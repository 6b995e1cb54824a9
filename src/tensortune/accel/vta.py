"""An analytical model of a VTA-like GEMM accelerator running a tiled int8 conv2d.

VTA (apache/tvm-vta) is a decoupled access-execute accelerator: a LOAD module fills the input, weight
and micro-op SRAMs over an AXI bus, a COMPUTE module runs GEMM (BATCH x BLOCK_IN x BLOCK_OUT
multiply-accumulates per cycle into an int32 accumulator SRAM) and ALU instructions, and a STORE
module writes results back. TVM 0.27 no longer ships it, so this module models it from the published
facts collected in shared/notes/vta-model.md (hw_spec.h, pkg_config.py, vta_cost.py, vta_conv2d.py).

The conv2d schedule is the one of TVM's ``vta_conv2d.py``: the packed layouts are
``data[N/BATCH][C/BLOCK_IN][H][W][BATCH][BLOCK_IN]`` and ``weight[K/BLOCK_OUT][C/BLOCK_IN][R][S][BLOCK_OUT][BLOCK_IN]``;
outer tiles run batch, height, output channel, width; the input and weight tiles load at the outer
input-channel loop; ``h_nthread``/``oc_nthread`` virtual threads split the tile's height and output
channels, each thread owning its share of the SRAMs. One GEMM instruction per thread and input-channel
step runs two hardware loops (tile height, tile output channels) over a micro-op kernel that enumerates
(input channel block, kernel row, kernel column, batch, width); each micro-op is a (acc, inp, wgt)
index triple, and the hardware adds ``loop_index * factor`` to each index, as VTA's GEMM does.

Everything here is vectorised over numpy arrays of configurations (``evaluate``), so one call can
score millions of (hardware, schedule) pairs; ``vta_functional.py`` executes the same schedule on
data to prove the tiling, addressing and buffer checks.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from enum import IntEnum
from typing import Any

import numpy as np

from tensortune.workloads.conv2d import Conv2d

# --------------------------------------------------------------------------- published constants
GEMM_OVERHEAD = 80  # cycles per GEMM instruction (vta_cost.py: x + 80)
LOAD_OVERHEAD = 150  # cycles per LOAD/STORE instruction (x + 150)
ALU_OVERHEAD = 46  # cycles per ALU instruction (2x + 46)
ALU_PER_ENTRY = 2
ALU_OPS_PER_TILE = 3  # requantisation of the accumulator: shift right, clip max, clip min
SMALL_ENTRY_CYCLES = 1.1  # loads of entries narrower than the bus (vta_cost.py: 1.1x)
WIDE_ENTRY_FACTOR = 17 / 16  # a 1 KiB weight entry over a 512-bit bus takes 17 cycles (16 beats + 1)
UOP_BYTES = 4
UOP_WIDTH_BITS = 32  # one micro-op word holds the acc, inp and wgt indices
MAX_DEPTH = 2 ** 16
MAX_LOOP_EXTENT = 2 ** 14
MAX_DMA = 2 ** 16

# Area for ARCO's penalty. SRAM: a least-squares fit through the origin of ZigZag/CACTI's 22 nm figures
# quoted in the notes (acc 128 KiB 0.34 mm^2, inp 32 KiB 0.07, wgt 256 KiB 1.03) = 3.64e-6 mm^2/byte.
# MAC: an int8 multiply-accumulate with its share of the int32 adder tree, 3.0e-4 mm^2 at 22 nm (our
# assumption, not a published VTA figure; it only sets the exchange rate between MACs and SRAM).
SRAM_MM2_PER_BYTE = 3.64e-6
MAC_MM2 = 3.0e-4


class Violation(IntEnum):
    """Why a (hardware, schedule) pair cannot run. 0 = runs."""

    NONE = 0
    STRUCTURE = 1  # a tile does not divide its extent (rejected statically by the template's space)
    HW_ENCODING = 2  # buffer depths do not fit the 32-bit micro-op word, or a depth is out of range
    INP_BUFFER = 3
    WGT_BUFFER = 4
    ACC_BUFFER = 5
    UOP_BUFFER = 6
    ACC_HAZARD = 7  # per-thread tile height or width <= 2: back-to-back writes to one accumulator entry
    LOOP_EXTENT = 8
    DMA_SIZE = 9


HW_KNOBS = ("BATCH", "BLOCK_IN", "BLOCK_OUT", "LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE",
            "LOG_UOP_BUFF_SIZE", "BUS_WIDTH")
SW_KNOBS = ("tile_b", "tile_h", "tile_w", "tile_ci", "tile_co", "h_nthread", "oc_nthread")


@dataclass(frozen=True)
class VtaHardware:
    """One accelerator design. Defaults: TVM's VTA default (pynq) preset, 1x16x16 GEMM, 64-bit bus,
    32 KiB input, 256 KiB weight, 128 KiB accumulator and 32 KiB micro-op SRAM, 100 MHz."""

    BATCH: int = 1
    BLOCK_IN: int = 16
    BLOCK_OUT: int = 16
    LOG_INP_BUFF_SIZE: int = 15
    LOG_WGT_BUFF_SIZE: int = 18
    LOG_ACC_BUFF_SIZE: int = 17
    LOG_UOP_BUFF_SIZE: int = 15
    BUS_WIDTH: int = 64
    freq_mhz: float = field(default=100.0, compare=True)

    def __post_init__(self) -> None:
        for name in ("BATCH", "BLOCK_IN", "BLOCK_OUT"):
            v = getattr(self, name)
            if v < 1 or v & (v - 1):
                raise ValueError(f"VTA {name} must be a power of two >= 1, got {v}")
        if self.BUS_WIDTH not in (32, 64, 128, 256, 512):
            raise ValueError(f"VTA BUS_WIDTH must be 32, 64, 128, 256 or 512 bits, got {self.BUS_WIDTH}")
        for name in ("LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE", "LOG_UOP_BUFF_SIZE"):
            if not 8 <= getattr(self, name) <= 24:
                raise ValueError(f"VTA {name} must be in 8..24 (log2 bytes), got {getattr(self, name)}")
        if self.freq_mhz <= 0:
            raise ValueError("VTA clock must be positive")

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> VtaHardware:
        unknown = set(d) - set(cls.__dataclass_fields__)
        if unknown:
            raise ValueError(f"unknown VTA hardware parameters {sorted(unknown)}; known: {', '.join(cls.__dataclass_fields__)}")
        return cls(**d)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    def knob_values(self) -> dict[str, int]:
        return {k: getattr(self, k) for k in HW_KNOBS}

    @property
    def sram_bytes(self) -> int:
        return sum(2 ** getattr(self, k) for k in ("LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE",
                                                  "LOG_UOP_BUFF_SIZE"))

    @property
    def area_mm2(self) -> float:
        return float(design_area(self.knob_values()))


def design_area(hw: dict[str, Any]) -> np.ndarray:
    """Area (mm^2) of designs given as knob arrays: MAC array plus all SRAMs."""
    macs = np.asarray(hw["BATCH"]) * np.asarray(hw["BLOCK_IN"]) * np.asarray(hw["BLOCK_OUT"])
    return macs * MAC_MM2 + design_memory(hw) * SRAM_MM2_PER_BYTE


def design_memory(hw: dict[str, Any]) -> np.ndarray:
    """On-chip SRAM bytes of designs given as knob arrays."""
    return sum(2.0 ** np.asarray(hw[k]) for k in ("LOG_INP_BUFF_SIZE", "LOG_WGT_BUFF_SIZE", "LOG_ACC_BUFF_SIZE",
                                                 "LOG_UOP_BUFF_SIZE"))


@dataclass(frozen=True)
class ConvShape:
    """The conv2d facts the model needs (batch, channels, output size, kernel, stride, padding)."""

    N: int
    C: int
    H: int
    W: int
    K: int
    R: int
    S: int
    stride: int
    pad: int
    OH: int
    OW: int

    @classmethod
    def of(cls, wl: Conv2d) -> ConvShape:
        if wl.dilation != (1, 1):
            raise ValueError(f"the VTA conv2d schedule has no dilation (got {wl.dilation})")
        if wl.stride[0] != wl.stride[1] or wl.padding[0] != wl.padding[1]:
            raise ValueError("the VTA conv2d schedule needs equal strides and paddings in H and W")
        oh, ow = wl.out_hw
        return cls(wl.batch, wl.in_channels, wl.height, wl.width, wl.out_channels, wl.kernel[0], wl.kernel[1],
                   wl.stride[0], wl.padding[0], oh, ow)

    @property
    def ops(self) -> int:
        return 2 * self.N * self.K * self.OH * self.OW * self.C * self.R * self.S


def _cdiv(a: Any, b: Any) -> Any:
    return -(-np.asarray(a) // np.asarray(b))


def _load_cycles_per_entry(entry_bytes: np.ndarray, bus_bits: np.ndarray) -> np.ndarray:
    beats = entry_bytes / (bus_bits / 8.0)
    return np.maximum(SMALL_ENTRY_CYCLES, WIDE_ENTRY_FACTOR * beats)


_VIOLATION_ORDER = (Violation.HW_ENCODING, Violation.INP_BUFFER, Violation.WGT_BUFFER, Violation.ACC_BUFFER,
                    Violation.UOP_BUFFER, Violation.ACC_HAZARD, Violation.LOOP_EXTENT, Violation.DMA_SIZE)


def evaluate(layer: ConvShape, p: dict[str, Any]) -> dict[str, np.ndarray]:
    """Cycles, validity and the compiler-derived quantities of (hardware, schedule) pairs.

    ``p`` maps every name in HW_KNOBS and SW_KNOBS to a scalar or array (broadcast together); tiles are
    counted in blocks for b/ci/co and in output pixels for h/w. Returns arrays: ``cycles`` (inf where
    invalid), ``violation`` (a Violation per config), ``need``/``have`` (the failing resource's
    requirement and capacity), and the quantities a compiler derives (entries per tile, micro-ops,
    instruction and transfer counts).
    """
    g = {k: np.asarray(p[k], dtype=np.int64) for k in (*HW_KNOBS, *SW_KNOBS)}
    B, BI, BO = g["BATCH"], g["BLOCK_IN"], g["BLOCK_OUT"]
    tb, th, tw, tci, tco = g["tile_b"], g["tile_h"], g["tile_w"], g["tile_ci"], g["tile_co"]
    ht, ot = g["h_nthread"], g["oc_nthread"]
    L = layer
    nb, nci, nco = _cdiv(L.N, B), _cdiv(L.C, BI), _cdiv(L.K, BO)
    structure_ok = ((nb % tb == 0) & (nci % tci == 0) & (nco % tco == 0) & (L.OH % th == 0) & (L.OW % tw == 0)
                    & (th % ht == 0) & (tco % ot == 0))
    th_t = np.maximum(th // ht, 1)
    tco_t = np.maximum(tco // ot, 1)
    vt = ht * ot
    # entry sizes (bytes) and buffer depths (entries)
    inp_e, wgt_e, acc_e, out_e = B * BI, BO * BI, B * BO * 4, B * BO
    d_inp = (2 ** g["LOG_INP_BUFF_SIZE"]) // inp_e
    d_wgt = (2 ** g["LOG_WGT_BUFF_SIZE"]) // wgt_e
    d_acc = (2 ** g["LOG_ACC_BUFF_SIZE"]) // acc_e
    d_uop = (2 ** g["LOG_UOP_BUFF_SIZE"]) // UOP_BYTES
    depths = np.stack(np.broadcast_arrays(d_inp, d_wgt, d_acc))
    with np.errstate(divide="ignore"):
        bits = np.ceil(np.log2(np.maximum(depths, 1))).sum(axis=0)
    # per-thread tile footprints (entries)
    in_h = (th_t - 1) * L.stride + L.R
    in_w = (tw - 1) * L.stride + L.S
    inp_t = tb * tci * in_h * in_w
    wgt_t = tco_t * tci * L.R * L.S
    acc_t = tb * th_t * tw * tco_t
    uops = tb * tw * tci * L.R * L.S  # one GEMM micro-op kernel per thread and input-channel step
    checks = {
        Violation.HW_ENCODING: (np.where(bits > UOP_WIDTH_BITS, bits, np.where(depths.min(axis=0) < 1, 0, depths.max(axis=0))),
                                np.where(bits > UOP_WIDTH_BITS, UOP_WIDTH_BITS, MAX_DEPTH),
                                (bits <= UOP_WIDTH_BITS) & (depths.min(axis=0) >= 1) & (depths.max(axis=0) <= MAX_DEPTH)),
        Violation.INP_BUFFER: (vt * inp_t, d_inp, vt * inp_t <= d_inp),
        Violation.WGT_BUFFER: (vt * wgt_t, d_wgt, vt * wgt_t <= d_wgt),
        Violation.ACC_BUFFER: (vt * acc_t, d_acc, vt * acc_t <= d_acc),
        Violation.UOP_BUFFER: (vt * uops, d_uop, vt * uops <= d_uop),
        Violation.ACC_HAZARD: (np.minimum(th_t, tw), 3, (th_t > 2) & (tw > 2)),
        Violation.LOOP_EXTENT: (np.maximum(th_t, tco_t), MAX_LOOP_EXTENT, np.maximum(th_t, tco_t) < MAX_LOOP_EXTENT),
        Violation.DMA_SIZE: (np.maximum(inp_t, wgt_t), MAX_DMA, np.maximum(inp_t, wgt_t) < MAX_DMA),
    }
    shape = np.broadcast(*[g[k] for k in g]).shape
    violation = np.where(structure_ok, Violation.NONE, Violation.STRUCTURE).astype(np.int64)
    violation = np.broadcast_to(violation, shape).copy()
    need = np.zeros(shape, dtype=np.int64)
    have = np.zeros(shape, dtype=np.int64)
    for kind in reversed(_VIOLATION_ORDER):  # the first failing check in _VIOLATION_ORDER wins
        n, h, ok = (np.broadcast_to(np.asarray(a), shape) for a in checks[kind])
        bad = ~ok & (violation != Violation.STRUCTURE)
        violation = np.where(bad, kind, violation)
        need = np.where(bad, n, need)
        have = np.where(bad, h, have)
    # cycles -------------------------------------------------------------------------------------
    bus = g["BUS_WIDTH"].astype(np.float64)
    c_inp = _load_cycles_per_entry(inp_e, bus)
    c_wgt = _load_cycles_per_entry(wgt_e, bus)
    c_out = np.maximum(1.0, out_e / (bus / 8.0))
    c_uop = _load_cycles_per_entry(np.asarray(UOP_BYTES), bus)
    n_out = (nb // np.maximum(tb, 1)) * (L.OH // np.maximum(th, 1)) * (L.OW // np.maximum(tw, 1)) * (nco // np.maximum(tco, 1))
    n_ci = nci // np.maximum(tci, 1)
    load = 2 * LOAD_OVERHEAD + inp_t * c_inp + wgt_t * c_wgt  # per thread and input-channel step
    gemm = GEMM_OVERHEAD + th_t * tco_t * uops
    reset = GEMM_OVERHEAD + acc_t
    alu = ALU_OPS_PER_TILE * (ALU_OVERHEAD + ALU_PER_ENTRY * acc_t)
    store = LOAD_OVERHEAD + acc_t * c_out
    serial = reset + n_ci * (load + gemm) + alu + store
    overlapped = np.maximum.reduce([vt * n_ci * load, vt * (reset + n_ci * gemm + alu), vt * store])
    per_tile = np.where(vt == 1, serial, overlapped)
    fill = np.where(vt == 1, 0.0, load + alu + store)
    uop_load = vt * (LOAD_OVERHEAD + uops * c_uop) + 2 * (LOAD_OVERHEAD + tb * tw * c_uop)  # + reset kernels
    cycles = n_out * per_tile + fill + uop_load
    valid = violation == Violation.NONE
    return {
        "cycles": np.where(valid, cycles, np.inf),
        "violation": violation,
        "need": need,
        "have": have,
        "inp_entries": vt * inp_t, "wgt_entries": vt * wgt_t, "acc_entries": vt * acc_t, "uop_entries": vt * uops,
        "inp_depth": np.broadcast_to(d_inp, shape), "wgt_depth": np.broadcast_to(d_wgt, shape),
        "acc_depth": np.broadcast_to(d_acc, shape), "uop_depth": np.broadcast_to(d_uop, shape),
        "out_tiles": n_out, "ci_steps": n_ci, "gemm_instructions": n_out * vt * n_ci,
        "load_cycles": load, "gemm_cycles": gemm, "store_cycles": store,
        "padded_macs": nb * B * nco * BO * L.OH * L.OW * nci * BI * L.R * L.S,
        "pad_channels": nci * BI - L.C + nco * BO - L.K,
    }


def violation_message(layer: ConvShape, kind: int, need: int, have: int) -> str:
    """A precise one-line reason for a violation (what overflowed, by how much)."""
    v = Violation(int(kind))
    if v is Violation.HW_ENCODING:
        if have == UOP_WIDTH_BITS:
            return f"hw_encoding: buffer depths need {need} index bits, a micro-op word holds {UOP_WIDTH_BITS}"
        return f"hw_encoding: a buffer depth of {need} entries is outside 1..{MAX_DEPTH}"
    names = {Violation.INP_BUFFER: "input", Violation.WGT_BUFFER: "weight", Violation.ACC_BUFFER: "accumulator",
             Violation.UOP_BUFFER: "micro-op"}
    if v in names:
        return f"{v.name.lower()}: the {names[v]} tiles need {need} entries, the {names[v]} buffer holds {have}"
    if v is Violation.ACC_HAZARD:
        return f"acc_hazard: per-thread tile height/width {need} <= 2 writes one accumulator entry back to back"
    if v is Violation.LOOP_EXTENT:
        return f"loop_extent: a GEMM loop extent of {need} exceeds the encodable {have - 1}"
    if v is Violation.DMA_SIZE:
        return f"dma_size: a transfer of {need} entries exceeds the DMA limit {have}"
    if v is Violation.STRUCTURE:
        return "structure: a tile does not divide its loop extent"
    return "ok"


def _cdiv1(a: int, b: int) -> int:
    return -(-a // b)


def _load1(entry_bytes: int, bus_bits: int) -> float:
    return max(SMALL_ENTRY_CYCLES, WIDE_ENTRY_FACTOR * (entry_bytes / (bus_bits / 8.0)))


def _bits1(depth: int) -> int:
    return (max(depth, 1) - 1).bit_length()  # ceil(log2(depth)) for depth >= 1


def evaluate_one(layer: ConvShape, p: dict[str, int]) -> dict[str, Any]:
    """:func:`evaluate` for one configuration in plain Python integers (no numpy), for single
    measurements: the same formulas and checks in the same order, about 20x faster than a 1-element
    array call. ``tests/accel/test_vta.py`` checks that both agree on whole spaces."""
    B, BI, BO = int(p["BATCH"]), int(p["BLOCK_IN"]), int(p["BLOCK_OUT"])
    tb, th, tw, tci, tco = (int(p[k]) for k in ("tile_b", "tile_h", "tile_w", "tile_ci", "tile_co"))
    ht, ot = int(p["h_nthread"]), int(p["oc_nthread"])
    L = layer
    nb, nci, nco = _cdiv1(L.N, B), _cdiv1(L.C, BI), _cdiv1(L.K, BO)
    structure_ok = (nb % tb == 0 and nci % tci == 0 and nco % tco == 0 and L.OH % th == 0 and L.OW % tw == 0
                    and th % ht == 0 and tco % ot == 0)
    th_t = max(th // ht, 1)
    tco_t = max(tco // ot, 1)
    vt = ht * ot
    inp_e, wgt_e, acc_e, out_e = B * BI, BO * BI, B * BO * 4, B * BO
    d_inp = (1 << int(p["LOG_INP_BUFF_SIZE"])) // inp_e
    d_wgt = (1 << int(p["LOG_WGT_BUFF_SIZE"])) // wgt_e
    d_acc = (1 << int(p["LOG_ACC_BUFF_SIZE"])) // acc_e
    d_uop = (1 << int(p["LOG_UOP_BUFF_SIZE"])) // UOP_BYTES
    dmin, dmax = min(d_inp, d_wgt, d_acc), max(d_inp, d_wgt, d_acc)
    bits = _bits1(d_inp) + _bits1(d_wgt) + _bits1(d_acc)
    in_h = (th_t - 1) * L.stride + L.R
    in_w = (tw - 1) * L.stride + L.S
    inp_t = tb * tci * in_h * in_w
    wgt_t = tco_t * tci * L.R * L.S
    acc_t = tb * th_t * tw * tco_t
    uops = tb * tw * tci * L.R * L.S
    violation, need, have = Violation.NONE, 0, 0
    if not structure_ok:
        violation = Violation.STRUCTURE
    else:
        checks = (
            (Violation.HW_ENCODING, bits if bits > UOP_WIDTH_BITS else (0 if dmin < 1 else dmax),
             UOP_WIDTH_BITS if bits > UOP_WIDTH_BITS else MAX_DEPTH,
             bits <= UOP_WIDTH_BITS and dmin >= 1 and dmax <= MAX_DEPTH),
            (Violation.INP_BUFFER, vt * inp_t, d_inp, vt * inp_t <= d_inp),
            (Violation.WGT_BUFFER, vt * wgt_t, d_wgt, vt * wgt_t <= d_wgt),
            (Violation.ACC_BUFFER, vt * acc_t, d_acc, vt * acc_t <= d_acc),
            (Violation.UOP_BUFFER, vt * uops, d_uop, vt * uops <= d_uop),
            (Violation.ACC_HAZARD, min(th_t, tw), 3, th_t > 2 and tw > 2),
            (Violation.LOOP_EXTENT, max(th_t, tco_t), MAX_LOOP_EXTENT, max(th_t, tco_t) < MAX_LOOP_EXTENT),
            (Violation.DMA_SIZE, max(inp_t, wgt_t), MAX_DMA, max(inp_t, wgt_t) < MAX_DMA),
        )
        for kind, n, h, ok in checks:
            if not ok:
                violation, need, have = kind, int(n), int(h)
                break
    bus = float(int(p["BUS_WIDTH"]))
    c_inp, c_wgt, c_uop = _load1(inp_e, bus), _load1(wgt_e, bus), _load1(UOP_BYTES, bus)
    c_out = max(1.0, out_e / (bus / 8.0))
    n_out = (nb // max(tb, 1)) * (L.OH // max(th, 1)) * (L.OW // max(tw, 1)) * (nco // max(tco, 1))
    n_ci = nci // max(tci, 1)
    load = 2 * LOAD_OVERHEAD + inp_t * c_inp + wgt_t * c_wgt
    gemm = GEMM_OVERHEAD + th_t * tco_t * uops
    reset = GEMM_OVERHEAD + acc_t
    alu = ALU_OPS_PER_TILE * (ALU_OVERHEAD + ALU_PER_ENTRY * acc_t)
    store = LOAD_OVERHEAD + acc_t * c_out
    if vt == 1:
        per_tile, fill = reset + n_ci * (load + gemm) + alu + store, 0.0
    else:
        per_tile = max(vt * n_ci * load, vt * (reset + n_ci * gemm + alu), vt * store)
        fill = load + alu + store
    uop_load = vt * (LOAD_OVERHEAD + uops * c_uop) + 2 * (LOAD_OVERHEAD + tb * tw * c_uop)
    cycles = n_out * per_tile + fill + uop_load
    return {
        "cycles": cycles if violation == Violation.NONE else float("inf"),
        "violation": int(violation), "need": need, "have": have,
        "inp_entries": vt * inp_t, "wgt_entries": vt * wgt_t, "acc_entries": vt * acc_t, "uop_entries": vt * uops,
        "inp_depth": d_inp, "wgt_depth": d_wgt, "acc_depth": d_acc, "uop_depth": d_uop,
        "out_tiles": n_out, "ci_steps": n_ci, "gemm_instructions": n_out * vt * n_ci,
        "load_cycles": load, "gemm_cycles": gemm, "store_cycles": store,
        "padded_macs": nb * B * nco * BO * L.OH * L.OW * nci * BI * L.R * L.S,
        "pad_channels": nci * BI - L.C + nco * BO - L.K,
    }
