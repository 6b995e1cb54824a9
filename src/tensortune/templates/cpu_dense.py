"""CPU dense: out[m, n] = sum_k data[m, k] * weight[n, k].

Knobs: ``tile_y`` splits the batch rows into [parallel, middle, register]; ``tile_x`` splits the
output features into [parallel, middle, register, vector-lanes]; ``tile_k`` splits the reduction
into [outer, inner]; the unroll knobs as in the conv2d template. The weight is packed into
``[N / x_v, K, x_v]`` (deployment layout, packed once, not timed).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from tensortune.space import Constraint, OptionKnob, SearchSpace, SplitKnob
from tensortune.templates.base import Template
from tensortune.workloads.dense import Dense


def dense_space(m: int, k: int, n: int, register_floats: int = 1024) -> SearchSpace:
    """The knobs of a dense layer out[m, n] = data[m, k] x weight (this template's, and ``dense_fused.llvm``'s on a
    model's fused dense function), with the register block (rows x output vectors x lanes) at most
    ``register_floats`` accumulators."""
    knobs = [
        SplitKnob("tile_y", m, 3),
        SplitKnob("tile_x", n, 4, max_factor=64),
        SplitKnob("tile_k", k, 2),
        OptionKnob("auto_unroll_max_step", [0, 32, 128, 512], group="unroll"),
        OptionKnob("unroll_explicit", [0, 1], group="unroll"),
    ]
    cons = [Constraint(f"register block <= {register_floats} floats",
                       lambda v: v["tile_y"][2] * v["tile_x"][2] * v["tile_x"][3] <= register_floats)]
    return SearchSpace(knobs, cons)


class CpuDense(Template):
    name = "dense.llvm"
    target_kind = "llvm"
    ops = ("dense",)
    vector_lanes = ("tile_x", 3)

    def space(self, wl: Dense) -> SearchSpace:
        return dense_space(wl.batch, wl.in_features, wl.out_features)

    def prepare_inputs(self, wl: Dense, values: dict[str, Any], inputs: list[np.ndarray]) -> list[np.ndarray]:
        data, weight = inputs
        xv = values["tile_x"][3]
        n, k = weight.shape
        return [data, weight.reshape(n // xv, xv, k).transpose(0, 2, 1).copy()]

    def instantiate(self, wl: Dense, v: dict[str, Any]) -> Any:
        from tvm import s_tir, te

        m_, k_, n_ = wl.batch, wl.in_features, wl.out_features
        x0, x1, x2, xv = v["tile_x"]
        _, y1, y2 = v["tile_y"]
        _, ki = v["tile_k"]
        data = te.placeholder((m_, k_), name="data")
        weight = te.placeholder((n_ // xv, k_, xv), name="weight")
        rk = te.reduce_axis((0, k_), "rk")
        dense = te.compute((m_, n_ // xv, xv), lambda i, jo, ji: te.sum(data[i, rk] * weight[jo, rk, ji], axis=rk), name="dense")
        out = te.compute((m_, n_), lambda i, j: dense[i, j // xv, j % xv], name="out")
        sch = s_tir.Schedule(te.create_prim_func([data, weight, out]))
        blk = sch.get_sblock("dense")
        sch.compute_inline(sch.cache_write(blk, 0, "local"))
        i, jo, ji, k = sch.get_loops(blk)
        i0, i1, i2 = sch.split(i, [None, y1, y2])
        j0, j1, j2 = sch.split(jo, [x0, x1, x2])
        k0, k1 = sch.split(k, [None, ki])
        sch.reorder(i0, j0, i1, j1, k0, k1, i2, j2, ji)
        outer = sch.fuse(i0, j0)
        sch.parallel(outer)
        sch.vectorize(ji)
        sch.reverse_compute_at(sch.get_sblock("out"), j1)
        init = sch.decompose_reduction(blk, k0)
        sch.vectorize(sch.get_loops(init)[-1])
        sch.annotate(outer, "pragma_auto_unroll_max_step", int(v["auto_unroll_max_step"]))
        sch.annotate(outer, "pragma_unroll_explicit", int(v["unroll_explicit"]))
        return sch.mod
