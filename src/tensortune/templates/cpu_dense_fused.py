"""``dense_fused.llvm``: a model's fused dense layer (matmul + bias [+ relu]) on x86.

Until stop 78 a model's dense layers ran in MetaSchedule's design space (``ms-space.llvm``), whose
decisions are one function's own, so nothing transferred to them: VGG-16's fc6 (25088 x 4096, 411 MB
of weights streamed per call, memory-bound) reached 9.66 ms in 112 measurements of a 1,000-measurement
run and 12.00 ms in the 21 a 200-measurement run gave it (Zen 3 VM, stop 77,
``results/transfer/znver3-s77/tasks-vgg16-s0.md``).

This template is ``dense.llvm``'s loop nest (the same knobs) on the fused function Relax lowers a
``Linear`` to: ``matmul`` (data[M, K] x weight[K, N], the weight a layout-free constant) followed by
element-wise epilogue blocks (bias, relu), which are computed from the register block. The output
features split ``tile_x`` = [parallel, middle, register, vector lanes], the rows ``tile_y`` =
[parallel, middle, register], the reduction ``tile_k`` = [outer, inner]; the nest is
``parallel(y0, x0) / y1 / x1 / k0 / k1 / y2 / x2 / lanes``. MetaSchedule's ``RewriteLayout`` stores the
weight in that order (once, at build time), so each thread streams its columns contiguously.
"""

from __future__ import annotations

from typing import Any

from tensortune.space import SearchSpace
from tensortune.templates.base import InstantiationError
from tensortune.templates.cpu_dense import dense_space
from tensortune.templates.tir_schedules import TirTemplate, fold_epilogue, postprocess
from tensortune.workloads.tir import TirWorkload, block_kinds

MATMUL = "matmul"
REGISTER_FLOATS = 256  # accumulators of the register block (y2 x x2 x lanes): 32 AVX2 registers' worth


def dense_params(wl: Any) -> tuple[int, int, int] | None:
    """(M, K, N) of the dense layer a fused function computes: one ``matmul`` reduction block over
    (i: M, j: N, k: K) reading data[i, k] and weight[k, j], every other block element-wise; None if the
    function is not one."""
    if not isinstance(wl, TirWorkload) or wl.kind != "dense":
        return None
    from tvm import s_tir

    func = wl.mod["main"]
    blocks = block_kinds(func)
    if MATMUL not in blocks or [n for n, r in blocks.items() if r] != [MATMUL]:
        return None
    sch = s_tir.Schedule(func)
    rv = sch.get_sblock(MATMUL)
    blk = sch.get(rv)
    if [int(iv.iter_type) for iv in blk.iter_vars] != [0, 0, 2] or len(sch.get_loops(rv)) != 3:
        return None
    m, n, k = (int(iv.dom.extent) for iv in blk.iter_vars)
    vi, vj, vk = (iv.var for iv in blk.iter_vars)
    reads = [[r.min for r in region.region] for region in blk.reads]
    if len(reads) != 2 or len(blk.writes) != 1:
        return None
    if not (_same(reads[0], (vi, vk)) and _same(reads[1], (vk, vj))):
        return None
    return m, k, n


def _same(exprs: list[Any], vars_: tuple[Any, ...]) -> bool:
    return len(exprs) == len(vars_) and all(e.same_as(v) for e, v in zip(exprs, vars_, strict=True))


class CpuDenseFused(TirTemplate):
    name = "dense_fused.llvm"
    register_block = {"tile_y": (2,), "tile_x": (2, 3)}
    vector_lanes = ("tile_x", 3)

    def supports(self, wl: Any) -> bool:
        return dense_params(wl) is not None

    def space(self, wl: TirWorkload) -> SearchSpace:
        got = dense_params(wl)
        if got is None:
            raise InstantiationError(f"{wl.describe()} is not a dense layer this template covers")
        return dense_space(*got, register_floats=REGISTER_FLOATS)

    def schedule(self, wl: TirWorkload, v: dict[str, Any]) -> Any:
        from tvm import s_tir

        if dense_params(wl) is None:
            raise InstantiationError(f"{wl.describe()} is not a dense layer this template covers")
        sch = s_tir.Schedule(wl.mod)
        mm = sch.get_sblock(MATMUL)
        out = fold_epilogue(sch, MATMUL, "dense")  # bias and activation read the accumulators
        i, j, k = sch.get_loops(mm)
        _, y1, y2 = v["tile_y"]
        _, x1, x2, xv = v["tile_x"]
        i0, i1, i2 = sch.split(i, [None, y1, y2])
        j0, j1, j2, jv = sch.split(j, [None, x1, x2, xv])
        k0, k1 = sch.split(k, [None, v["tile_k"][1]])
        sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2, jv)
        outer = sch.fuse(i0, j0)
        sch.parallel(outer)
        sch.vectorize(jv)
        sch.reverse_compute_at(out, j1)
        last = sch.get_loops(out)[-1]  # the block's columns: x2 x lanes
        sch.vectorize(sch.split(last, [None, xv])[1])
        init = sch.decompose_reduction(mm, k0)
        sch.vectorize(sch.get_loops(init)[-1])
        sch.annotate(outer, "pragma_auto_unroll_max_step", int(v["auto_unroll_max_step"]))
        sch.annotate(outer, "pragma_unroll_explicit", int(v["unroll_explicit"]))
        return postprocess(sch)
