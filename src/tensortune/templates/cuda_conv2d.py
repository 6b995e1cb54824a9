"""CUDA conv2d (NCHW, OIHW weights), AutoTVM's direct ``conv2d_nchw`` schedule with the same knobs.

``tile_f``/``tile_y``/``tile_x`` split the output channels/rows/columns into
[block, virtual thread, thread, inner]; ``tile_rc``/``tile_ry``/``tile_rx`` split the reductions into
[outer, inner]; the padded input and the weights are staged in shared memory per outer reduction
step and fetched cooperatively by the block's threads; the output tile lives in registers;
``auto_unroll_max_step``/``unroll_explicit`` drive the unroller. Configs that exceed a block's limits
(threads, shared memory) build into invalid kernels; the builder detects them on the lowered program
and records them as ``COMPILE_DEVICE`` errors.
"""

from __future__ import annotations

from typing import Any

from tensortune.space import OptionKnob, SearchSpace, SplitKnob
from tensortune.templates.base import Template
from tensortune.workloads.conv2d import Conv2d


class CudaConv2d(Template):
    name = "conv2d_nchw.cuda"
    target_kind = "cuda"
    ops = ("conv2d_nchw",)

    def space(self, wl: Conv2d) -> SearchSpace:
        oh, ow = wl.out_hw
        return SearchSpace([
            SplitKnob("tile_f", wl.out_channels, 4),
            SplitKnob("tile_y", oh, 4),
            SplitKnob("tile_x", ow, 4),
            SplitKnob("tile_rc", wl.in_channels, 2),
            SplitKnob("tile_ry", wl.kernel[0], 2),
            SplitKnob("tile_rx", wl.kernel[1], 2),
            OptionKnob("auto_unroll_max_step", [0, 512, 1500], group="unroll"),
            OptionKnob("unroll_explicit", [0, 1], group="unroll"),
        ])

    def instantiate(self, wl: Conv2d, v: dict[str, Any]) -> Any:
        import tvm
        from tvm import s_tir, te

        n_, c_, h_, w_, k_ = wl.batch, wl.in_channels, wl.height, wl.width, wl.out_channels
        (kh, kw), (sh, sw), (ph, pw), (dh, dw) = wl.kernel, wl.stride, wl.padding, wl.dilation
        oh, ow = wl.out_hw
        data = te.placeholder((n_, c_, h_, w_), name="data")
        kernel = te.placeholder((k_, c_, kh, kw), name="kernel")
        zero = tvm.tirx.const(0.0, "float32")
        pad = te.compute((n_, c_, h_ + 2 * ph, w_ + 2 * pw), lambda n, c, h, w: tvm.tirx.if_then_else(
            tvm.tirx.all(h >= ph, h < h_ + ph, w >= pw, w < w_ + pw), data[n, c, h - ph, w - pw], zero), name="pad")
        rc, ry, rx = te.reduce_axis((0, c_), "rc"), te.reduce_axis((0, kh), "ry"), te.reduce_axis((0, kw), "rx")
        out = te.compute((n_, k_, oh, ow), lambda n, f, y, x: te.sum(
            pad[n, rc, y * sh + ry * dh, x * sw + rx * dw] * kernel[f, rc, ry, rx], axis=[rc, ry, rx]), name="conv")
        sch = s_tir.Schedule(te.create_prim_func([data, kernel, out]))
        conv = sch.get_sblock("conv")
        wb = sch.cache_write(conv, 0, "local")
        aa = sch.cache_read(conv, 0, "shared")
        ww = sch.cache_read(conv, 1, "shared")
        n, f, y, x, r_c, r_y, r_x = sch.get_loops(conv)
        bf, vf, tf, fi = sch.split(f, list(v["tile_f"]))
        by, vy, ty, yi = sch.split(y, list(v["tile_y"]))
        bx, vx, tx, xi = sch.split(x, list(v["tile_x"]))
        rco, rci = sch.split(r_c, list(v["tile_rc"]))
        ryo, ryi = sch.split(r_y, list(v["tile_ry"]))
        rxo, rxi = sch.split(r_x, list(v["tile_rx"]))
        sch.reorder(n, bf, by, bx, vf, vy, vx, tf, ty, tx, rco, ryo, rxo, rci, ryi, rxi, fi, yi, xi)
        bz = sch.fuse(n, bf)
        sch.bind(bz, "blockIdx.z")
        sch.bind(by, "blockIdx.y")
        sch.bind(bx, "blockIdx.x")
        sch.bind(vf, "vthread.z")
        sch.bind(vy, "vthread.y")
        sch.bind(vx, "vthread.x")
        sch.bind(tf, "threadIdx.z")
        sch.bind(ty, "threadIdx.y")
        sch.bind(tx, "threadIdx.x")
        sch.reverse_compute_at(wb, tx)
        nthreads = (v["tile_f"][2], v["tile_y"][2], v["tile_x"][2])
        depth = 12  # bz, by, bx, 3 vthreads, 3 threads, rco, ryo, rxo enclose the shared-memory stages
        for cache in (aa, ww):
            sch.compute_at(cache, rxo)
            inner = sch.get_loops(cache)[depth:]
            if not inner:  # one element per reduction step: no loop to spread over the threads
                continue
            fused = sch.fuse(*inner)
            _, t_z, t_y, t_x = sch.split(fused, [None, *nthreads])
            sch.bind(t_z, "threadIdx.z")
            sch.bind(t_y, "threadIdx.y")
            sch.bind(t_x, "threadIdx.x")
        sch.compute_inline(sch.get_sblock("pad"))
        sch.decompose_reduction(conv, rco)
        sch.annotate(bx, "pragma_auto_unroll_max_step", int(v["auto_unroll_max_step"]))
        sch.annotate(bx, "pragma_unroll_explicit", int(v["unroll_explicit"]))
        return sch.mod


class CudaConv2dSmall(CudaConv2d):
    """The same schedule as :class:`CudaConv2d` on a reduced space small enough to measure completely
    on a GPU (the CUDA ground-truth tables). Every config of this space is a config of the full
    template with the same knob values.

    Kept: output channels split [outer, 1 or 2 virtual threads, 8/16/32 threads, 1 or 4 per thread];
    output rows and columns split [outer, 1, at most 16 threads, at most 7 per thread]; reduction
    channels staged 4 or 16 at a time (all of them when there are fewer than 8); kernel rows/columns
    staged one or all at a time; unrolling off or up to 1,500 steps, explicit. Some configs exceed a
    block's threads or shared memory: they stay in the space and are recorded invalid, as the papers'
    GPU spaces hold invalid configs too.
    """

    name = "conv2d_nchw.cuda-small"

    def space(self, wl: Conv2d) -> SearchSpace:
        c = wl.in_channels
        rc_inner = (c,) if c < 8 else (4, 16)
        return super().space(wl).restrict({
            "tile_f": lambda t: t[1] in (1, 2) and t[2] in (8, 16, 32) and t[3] in (1, 4),
            "tile_y": lambda t: t[1] == 1 and t[2] <= 16 and t[3] <= 7,
            "tile_x": lambda t: t[1] == 1 and t[2] <= 16 and t[3] <= 7,
            "tile_rc": lambda t: t[1] in rc_inner,
            "tile_ry": lambda t: t[1] in (1, wl.kernel[0]),
            "tile_rx": lambda t: t[1] in (1, wl.kernel[1]),
            "auto_unroll_max_step": lambda v: v in (0, 1500),
            "unroll_explicit": lambda v: v == 1,
        })
