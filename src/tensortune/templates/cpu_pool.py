"""``max_pool.llvm``: a model's max pooling (NCHW or blocked NCHW[x]c) on x86.

MetaSchedule's design space for a pool splits the window reduction with ``rfactor`` into a buffer
three times the output and leaves the channel loop scalar: ResNet-18's stem max pool (NCHW16c,
3x3/2 on 64x112x112) ran at 62-74 us after 16 measurements of that space, 139-227 us inside the model
in some processes, against ONNX Runtime's 79 us.

This schedule computes the padding inline (a bounds check instead of a padded copy), runs the
window's rows and columns outside a register tile of ``tile_w`` output columns, and vectorises the
innermost loop: the channel block of a blocked layout (one 16-lane vector on AVX-512), or the tile's
columns in plain NCHW. Knobs: ``parallel`` (how many leading output loops form the parallel loop),
``tile_w`` and ``vectorize``. The same stem pool: 18-21 us with any vectorised tile (83 us as TVM
lowers it by default, 51-101 us unvectorised).
"""

from __future__ import annotations

from typing import Any

from tensortune.space import OptionKnob, SearchSpace
from tensortune.templates.base import InstantiationError
from tensortune.templates.tir_schedules import TirTemplate, postprocess
from tensortune.workloads.tir import TirWorkload, block_kinds

POOL, PAD = "pool_max", "pad_temp"
TILES = (1, 2, 4, 7, 8)
MAX_WINDOW_UNROLL = 64  # a window of more elements is looped, not unrolled


def _pool_loops(wl: TirWorkload) -> tuple[list[int], list[int], bool] | None:
    """(spatial extents, window extents, whether it pads) of the max pool a function computes: a
    ``pool_max`` block, at most a ``pad_temp`` block beside it, 4 (NCHW) or 5 (NCHW[x]c) output loops and
    a 2-d window; None if the function is not one."""
    from tvm import s_tir

    func = wl.mod["main"]
    blocks = block_kinds(func)
    if POOL not in blocks or not set(blocks) <= {POOL, PAD}:
        return None
    sch = s_tir.Schedule(func)
    blk = sch.get(sch.get_sblock(POOL))
    kinds = [int(iv.iter_type) for iv in blk.iter_vars]
    extents = [int(iv.dom.extent) for iv in blk.iter_vars]
    spatial = [e for k, e in zip(kinds, extents, strict=True) if k == 0]
    window = [e for k, e in zip(kinds, extents, strict=True) if k == 2]
    if kinds != [0] * len(spatial) + [2] * len(window) or len(spatial) not in (4, 5) or len(window) != 2:
        return None
    if len(sch.get_loops(sch.get_sblock(POOL))) != len(extents):
        return None
    return spatial, window, PAD in blocks


class CpuMaxPool(TirTemplate):
    name = "max_pool.llvm"

    def supports(self, wl: Any) -> bool:
        return isinstance(wl, TirWorkload) and wl.kind == "pool" and _pool_loops(wl) is not None

    def space(self, wl: TirWorkload) -> SearchSpace:
        got = _pool_loops(wl)
        if got is None:
            raise InstantiationError(f"{wl.describe()} is not a max pool this template covers")
        spatial = got[0]
        width = spatial[3]
        # k leading loops (n, c[, h]) fused into the parallel loop; a loop of extent 1 adds nothing
        par = [k for k in (2, 3) if spatial[k - 1] > 1] or [3]
        tiles = [t for t in TILES if width % t == 0]
        return SearchSpace([OptionKnob("parallel", par), OptionKnob("tile_w", tiles),
                            OptionKnob("vectorize", [1, 0])], [])

    def schedule(self, wl: TirWorkload, v: dict[str, Any]) -> Any:
        from tvm import s_tir

        got = _pool_loops(wl)
        if got is None:
            raise InstantiationError(f"{wl.describe()} is not a max pool this template covers")
        spatial, window, padded = got
        sch = s_tir.Schedule(wl.mod)
        pool = sch.get_sblock(POOL)
        if padded:
            sch.compute_inline(sch.get_sblock(PAD))
        loops = sch.get_loops(pool)
        n, c, h, w = loops[:4]
        block = loops[4] if len(spatial) == 5 else None
        r, s = loops[len(spatial):]
        wo, wi = sch.split(w, [None, int(v["tile_w"])])
        sch.reorder(n, c, h, wo, r, s, wi, *([block] if block is not None else []))
        outer = sch.fuse(n, c, h) if int(v["parallel"]) == 3 else sch.fuse(n, c)
        sch.parallel(outer)
        # the vector: the channel block, or in NCHW the tile's columns (nothing to vectorise in a tile of 1)
        vec = int(v["vectorize"]) and (block is not None or int(v["tile_w"]) > 1)
        if vec:
            sch.vectorize(block if block is not None else wi)
        if block is not None:
            sch.unroll(wi)
        if window[0] * window[1] <= MAX_WINDOW_UNROLL:
            sch.unroll(r)
            sch.unroll(s)
        init = sch.decompose_reduction(pool, r)
        if vec:
            sch.vectorize(sch.get_loops(init)[-1])
        return postprocess(sch)
