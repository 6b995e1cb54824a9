"""CPU conv2d (NCHW in, NCHW out) with the papers' knobs mapped to an x86 schedule.

Knobs (names as in AutoTVM/Chameleon): ``tile_f`` splits the output channels into
[parallel, middle, register, vector-lanes]; ``tile_y`` and ``tile_x`` split the output rows and
columns into [parallel, middle, register]; ``tile_rc``/``tile_ry``/``tile_rx`` split the reduction
axes into [outer, inner]; ``auto_unroll_max_step`` and ``unroll_explicit`` drive TVM's unroller.

The weight is packed into ``[K / f_v, C, R, S, f_v]`` (``f_v`` = innermost factor of tile_f) so that
the innermost loop is a contiguous vector FMA; this is the deployment layout (weights are constants,
packed once, as TVM's x86 ``conv2d_NCHWc`` does), so the pack is not timed. The output is
accumulated in a register block (``cache_write`` to ``local``) and written back straight into NCHW.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.space import Constraint, OptionKnob, SearchSpace, SplitKnob
from tensortune.templates.base import Template
from tensortune.workloads.conv2d import Conv2d

MAX_REGISTER_BLOCK = 1024  # floats accumulated per register block (f_r * f_v * y_r * x_r)


# the factors accumulated in registers: output-channel vectors x lanes x rows x columns
REGISTER_BLOCK = {"tile_f": (2, 3), "tile_y": (2,), "tile_x": (2,)}
VECTOR_LANES = ("tile_f", 3)  # the packed weight's innermost block: one FMA's output channels
SPATIAL_AXES = ("tile_y", "tile_x")  # the register tile's rows and columns of the output plane


def _register_block(v: dict[str, Any]) -> int:
    return int(np.prod([v[k][j] for k, js in REGISTER_BLOCK.items() for j in js]))


class CpuConv2d(Template):
    name = "conv2d_nchw.llvm"
    target_kind = "llvm"
    ops = ("conv2d_nchw",)
    register_block = REGISTER_BLOCK
    vector_lanes = VECTOR_LANES
    spatial_axes = SPATIAL_AXES

    def space(self, wl: Conv2d) -> SearchSpace:
        oh, ow = wl.out_hw
        knobs = [
            SplitKnob("tile_f", wl.out_channels, 4, max_factor=64),
            SplitKnob("tile_y", oh, 3),
            SplitKnob("tile_x", ow, 3),
            SplitKnob("tile_rc", wl.in_channels, 2),
            SplitKnob("tile_ry", wl.kernel[0], 2),
            SplitKnob("tile_rx", wl.kernel[1], 2),
            OptionKnob("auto_unroll_max_step", [0, 32, 128, 512], group="unroll"),
            OptionKnob("unroll_explicit", [0, 1], group="unroll"),
        ]
        cons = [Constraint(f"register block <= {MAX_REGISTER_BLOCK} floats",
                           lambda v: _register_block(v) <= MAX_REGISTER_BLOCK)]
        return SearchSpace(knobs, cons)

    def prepare_inputs(self, wl: Conv2d, values: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        data, weight = inputs
        fv = values["tile_f"][3]
        k, c, r, s = weight.shape
        packed = weight.reshape(k // fv, fv, c, r, s).transpose(0, 2, 3, 4, 1).copy()
        return [data, packed]

    def compute(self, wl: Conv2d, fv: int) -> Any:
        import tvm
        from tvm import te

        n_, c_, h_, w_ = wl.batch, wl.in_channels, wl.height, wl.width
        k_ = wl.out_channels
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = wl.kernel, wl.stride, wl.padding, wl.dilation
        oh, ow = wl.out_hw
        data = te.placeholder((n_, c_, h_, w_), name="data", dtype="float32")
        kernel = te.placeholder((k_ // fv, c_, kh, kw, fv), name="kernel", dtype="float32")
        if ph or pw:
            zero = tvm.tirx.const(0.0, "float32")
            pad = te.compute(
                (n_, c_, h_ + 2 * ph, w_ + 2 * pw),
                lambda n, c, h, w: tvm.tirx.if_then_else(
                    tvm.tirx.all(h >= ph, h < h_ + ph, w >= pw, w < w_ + pw), data[n, c, h - ph, w - pw], zero),
                name="pad")
        else:
            pad = data
        rc = te.reduce_axis((0, c_), "rc")
        ry = te.reduce_axis((0, kh), "ry")
        rx = te.reduce_axis((0, kw), "rx")
        conv = te.compute(
            (n_, k_ // fv, oh, ow, fv),
            lambda n, ko, y, x, ki: te.sum(pad[n, rc, y * sh + ry * dh, x * sw + rx * dw] * kernel[ko, rc, ry, rx, ki],
                                           axis=[rc, ry, rx]),
            name="conv")
        out = te.compute((n_, k_, oh, ow), lambda n, k, y, x: conv[n, k // fv, y, x, k % fv], name="out")
        return te.create_prim_func([data, kernel, out]), bool(ph or pw)

    def instantiate(self, wl: Conv2d, v: dict[str, Any]) -> Any:
        from tvm import s_tir

        f0, f1, f2, fv = v["tile_f"]
        func, padded = self.compute(wl, fv)
        sch = s_tir.Schedule(func)
        conv = sch.get_sblock("conv")
        wb = sch.cache_write(conv, 0, "local")
        n, ko, y, x, ki, rc, ry, rx = sch.get_loops(conv)
        ko0, ko1, ko2 = sch.split(ko, [f0, f1, f2])
        outer, x1l, rc0 = tile_conv(sch, v, n, (ko0, ko1, ko2, ki), y, x, rc, ry, rx)
        sch.compute_inline(wb)
        sch.reverse_compute_at(sch.get_sblock("out"), x1l)
        finish_conv(sch, conv, outer, rc0, v, "pad" if padded else None)
        return sch.mod


def tile_conv(sch: Any, v: dict[str, Any], n: Any, f: tuple[Any, Any, Any, Any], y: Any, x: Any, rc: Any, ry: Any,
              rx: Any) -> tuple[Any, Any, Any]:
    """The knobs' loop nest of a conv block whose output channels are already split into
    ``f = (parallel, middle, register, vector)``: parallel outer tiles, register block innermost,
    vector lanes last. Returns the parallel loop, the loop the output block goes under, and the
    outer reduction loop."""
    ko0, ko1, ko2, ki = f
    _, y1, y2 = v["tile_y"]
    _, x1, x2 = v["tile_x"]
    y0, y1l, y2l = sch.split(y, [None, y1, y2])
    x0, x1l, x2l = sch.split(x, [None, x1, x2])
    rc0, rc1 = sch.split(rc, [None, v["tile_rc"][1]])
    ry0, ry1 = sch.split(ry, [None, v["tile_ry"][1]])
    rx0, rx1 = sch.split(rx, [None, v["tile_rx"][1]])
    sch.reorder(n, ko0, y0, x0, ko1, y1l, x1l, rc0, ry0, rx0, rc1, ry1, rx1, ko2, y2l, x2l, ki)
    outer = sch.fuse(n, ko0, y0, x0)
    sch.parallel(outer)
    sch.vectorize(ki)
    return outer, x1l, rc0


def finish_conv(sch: Any, conv: Any, outer: Any, rc0: Any, v: dict[str, Any], pad: str | None) -> None:
    """Vectorised accumulator init, the unroll knobs, and a parallel padding stage."""
    init = sch.decompose_reduction(conv, rc0)
    sch.vectorize(sch.get_loops(init)[-1])
    sch.annotate(outer, "pragma_auto_unroll_max_step", int(v["auto_unroll_max_step"]))
    sch.annotate(outer, "pragma_unroll_explicit", int(v["unroll_explicit"]))
    if pad is not None:
        loops = sch.get_loops(sch.get_sblock(pad))
        sch.parallel(sch.fuse(loops[0], loops[1]))


class CpuConv2dSmall(CpuConv2d):
    """The same schedule as :class:`CpuConv2d` on a reduced space small enough to measure completely
    (ground-truth tables, ``tensortune.bench``). Every config of this space is a config of the full
    template with the same knob values, so its best config deploys through the full template too.

    Kept: vector width 8 or 16 and 1, 2 or 4 vector registers of output channels with a middle split
    of 1 or 2; output rows/columns split [outer, 1, register] with a register tile of at most 16 rows
    and 16 columns; reduction channel blocks of 1, 8, 32 or the whole; kernel rows/columns either
    unrolled into the register block or not; unrolling off or 512 steps, explicit.
    """

    name = "conv2d_nchw.llvm-small"

    def space(self, wl: Conv2d) -> SearchSpace:
        c = wl.in_channels
        rc_inner = {1, 8, 32, c}
        return super().space(wl).restrict({
            "tile_f": lambda t: t[3] in (8, 16) and t[2] in (1, 2, 4) and t[1] in (1, 2),
            "tile_y": lambda t: t[1] == 1 and t[2] <= 16,
            "tile_x": lambda t: t[1] == 1 and t[2] <= 16,
            "tile_rc": lambda t: t[1] in rc_inner,
            "tile_ry": lambda t: t[1] in (1, wl.kernel[0]),
            "tile_rx": lambda t: t[1] in (1, wl.kernel[1]),
            "auto_unroll_max_step": lambda v: v in (0, 512),
            "unroll_explicit": lambda v: v == 1,
        })
