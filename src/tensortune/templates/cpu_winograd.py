"""A schedule template for the Winograd convolution of a model (``tensortune.models.winograd``), fused
with its epilogue (batch norm, residual add, ReLU).

Three parallel stages, each a loop nest over the whole layer:

* input transform: per (tile, vector of input channels), the ``alpha x alpha`` tile is read from the
  blocked input, transformed in registers (``B^T d B``, unrolled, only the non-zero coefficients) and
  stored as ``V[alpha, alpha, P, C]``;
* the batched product ``M[e, nu] = V[e, nu] U[e, nu]`` (one ``P x C`` by ``C x K`` product per tile
  position ``(e, nu)``): the register block of the direct template, ``tile_p`` tiles (broadcast ``V``
  values) by ``tile_k`` vectors of output channels (``U`` vectors), accumulated over a chunk of input
  channels (``tile_rc``);
* output transform and epilogue: per output tile and vector of output channels, ``A^T M A`` in registers,
  the fused epilogue on the result, stored blocked.

Knobs: ``tile_p`` [outer, register] of the tiles, ``tile_k`` [outer, register] of the output-channel
vectors, ``tile_rc`` [outer, inner] of the input channels, ``order`` of the parallel loops over output
channels and tiles, and TVM's unroll step for the product.
"""

from __future__ import annotations

from typing import Any

from tensortune.space import Constraint, OptionKnob, SearchSpace, SplitKnob
from tensortune.templates.base import InstantiationError
from tensortune.templates.tir_schedules import TirTemplate, postprocess
from tensortune.workloads.tir import TirWorkload, block_kinds

STAGES = ("data_pack_row", "data_pack", "bgemm", "inverse_row", "inverse")
# accumulators of the product's register block (tiles x output vectors), left room for the broadcast
# value and the U vectors: 28 of AVX-512's 32 vector registers, 12 of AVX2's 16
MAX_ACCUMULATORS = {16: 28, 8: 12}


def winograd_shape(wl: TirWorkload, blocks: dict[str, bool] | None = None) -> dict[str, int] | None:
    """The product's extents of a fused Winograd function: alpha, output-channel vectors ``kb``, tiles
    ``p``, input channels ``c``, the output vector ``x`` and the input block ``b``; None if the function
    is not one. ``blocks``: its :func:`block_kinds`, where the caller has them."""
    if not isinstance(wl, TirWorkload):
        return None
    blocks = block_kinds(wl.mod["main"]) if blocks is None else blocks
    if not all(s in blocks for s in STAGES):
        return None
    from tvm import s_tir

    sch = s_tir.Schedule(wl.mod["main"])
    bg = sch.get(sch.get_sblock("bgemm"))
    ext = [int(iv.dom.extent) for iv in bg.iter_vars]  # e, nu, ko, p, ki, rc
    data = wl.arg_specs[0][0]
    if len(ext) != 6 or len(data) != 5:
        return None
    return {"alpha": ext[0], "kb": ext[2], "p": ext[3], "x": ext[4], "c": ext[5], "b": int(data[4])}


class WinogradConv2d(TirTemplate):
    name = "conv2d_winograd_fused.llvm"
    register_block = {"tile_p": (1,), "tile_k": (1,)}

    def supports(self, wl: Any) -> bool:
        return winograd_shape(wl) is not None

    def space(self, wl: TirWorkload) -> SearchSpace:
        shp = winograd_shape(wl)
        if shp is None:
            raise InstantiationError(f"{wl.describe()} is not a Winograd convolution")
        limit = MAX_ACCUMULATORS.get(shp["x"], 12)
        c = shp["c"]
        knobs = [
            SplitKnob("tile_p", shp["p"], 2),
            SplitKnob("tile_k", shp["kb"], 2),
            SplitKnob("tile_rc", c, 2),
            OptionKnob("order", ["k_outer", "p_outer"]),
            OptionKnob("auto_unroll_max_step", [0, 64, 512]),
        ]
        cons = [Constraint(f"register block <= {limit} accumulators",
                           lambda v: v["tile_p"][1] * v["tile_k"][1] <= limit),
                Constraint("register tile of at most 16 tiles and 4 vectors",
                           lambda v: v["tile_p"][1] <= 16 and v["tile_k"][1] <= 4),
                Constraint("input-channel chunk of at least 16 (or all)",
                           lambda v: v["tile_rc"][1] >= min(16, c))]
        return SearchSpace(knobs, cons)

    def schedule(self, wl: TirWorkload, v: dict[str, Any]) -> Any:
        from tvm import s_tir

        blocks = block_kinds(wl.mod["main"])
        shp = winograd_shape(wl, blocks)
        if shp is None:
            raise InstantiationError(f"{wl.describe()} is not a Winograd convolution")
        sch = s_tir.Schedule(wl.mod)
        outputs = [sch.get(b).name_hint for b in sch.get_output_blocks(sch.get_sblock("root"))]
        if len(outputs) != 1:
            raise InstantiationError(f"Winograd function with {len(outputs)} outputs")
        out_name = outputs[0]
        keep = set(STAGES) | {out_name}
        # everything else (padding, the epilogue between the output transform and the output) is inlined;
        # the output transform itself is inlined into the output when an epilogue follows it
        for name in blocks:
            if name not in keep:
                sch.compute_inline(sch.get_sblock(name))
        if out_name != "inverse":
            sch.compute_inline(sch.get_sblock("inverse"))
        self._input_transform(sch, shp["b"])
        self._product(sch, v)
        self._output_transform(sch, out_name, shp["alpha"] - 2)
        return postprocess(sch)

    @staticmethod
    def _input_transform(sch: Any, b: int) -> None:
        dp = sch.get_sblock("data_pack")
        e, nu, p, c = sch.get_loops(dp)
        co, ci = sch.split(c, [None, b])
        sch.reorder(p, co, e, nu, ci)
        outer = sch.fuse(p, co)
        sch.parallel(outer)
        sch.unroll(e)
        sch.unroll(nu)
        sch.vectorize(ci)
        _in_registers(sch, "data_pack_row", outer, 1)

    @staticmethod
    def _product(sch: Any, v: dict[str, Any]) -> None:
        bg = sch.get_sblock("bgemm")
        acc = sch.cache_write(bg, 0, "local")
        e, nu, ko, p, ki, rc = sch.get_loops(bg)
        ko0, ko1 = sch.split(ko, list(v["tile_k"]))
        p0, p1 = sch.split(p, list(v["tile_p"]))
        rc0, rc1 = sch.split(rc, list(v["tile_rc"]))
        first, second = (ko0, p0) if v["order"] == "k_outer" else (p0, ko0)
        sch.reorder(e, nu, first, second, rc0, rc1, p1, ko1, ki)
        outer = sch.fuse(e, nu, first, second)
        sch.parallel(outer)
        sch.reverse_compute_at(acc, outer)
        sch.vectorize(ki)
        init = sch.decompose_reduction(bg, rc0)
        sch.vectorize(sch.get_loops(init)[-1])
        sch.vectorize(sch.get_loops(acc)[-1])
        sch.annotate(outer, "pragma_auto_unroll_max_step", int(v["auto_unroll_max_step"]))
        sch.annotate(outer, "pragma_unroll_explicit", 1)

    @staticmethod
    def _output_transform(sch: Any, out_name: str, m: int) -> None:
        out = sch.get_sblock(out_name)
        n, ko, y, z, ki = sch.get_loops(out)
        y0, y1 = sch.split(y, [None, m])
        z0, z1 = sch.split(z, [None, m])
        sch.reorder(n, ko, y0, z0, y1, z1, ki)
        sch.parallel(sch.fuse(n, ko, y0))
        sch.unroll(y1)
        sch.unroll(z1)
        sch.vectorize(ki)
        _in_registers(sch, "inverse_row", z0, 2)


def _in_registers(sch: Any, name: str, at: Any, depth: int) -> None:
    """The first pass of a transform (block ``name``) computed per tile under loop ``at`` (the ``depth``-th
    loop of the nest) into a local buffer: its loops unrolled (the coefficient selects fold), the last one
    (the channel vector) vectorized."""
    row = sch.get_sblock(name)
    sch.compute_at(row, at)
    sch.set_scope(row, 0, "local")
    loops = sch.get_loops(row)[depth:]
    for lp in loops[:-1]:
        sch.unroll(lp)
    sch.vectorize(loops[-1])
