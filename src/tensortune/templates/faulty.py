"""A dense template whose ``fault`` knob selects a deliberately broken kernel.

It exists to prove the measurement isolation on real compiled code: ``segfault`` loads from an
unmapped address, ``hang`` runs a 2**60-step reduction, ``wrong`` drops the last reduction element,
``instantiate`` raises in the template, ``alloc`` needs a 4 GiB intermediate buffer (past a
2 GiB worker memory limit), ``none`` is a correct kernel. A tuning run over this space must record each with its error kind and
go on.
"""

from __future__ import annotations

from typing import Any

from tensortune.space import OptionKnob, SearchSpace
from tensortune.templates.base import InstantiationError, Template
from tensortune.workloads.dense import Dense

FAULTS = ("none", "wrong", "segfault", "hang", "instantiate", "alloc")


class FaultyDense(Template):
    name = "faulty_dense.llvm"
    target_kind = "llvm"
    ops = ("dense",)

    def space(self, wl: Dense) -> SearchSpace:
        return SearchSpace([OptionKnob("fault", list(FAULTS)), OptionKnob("unroll_explicit", [0, 1])])

    def instantiate(self, wl: Dense, v: dict[str, Any]) -> Any:
        import tvm
        from tvm import s_tir, te

        m_, k_, n_ = wl.batch, wl.in_features, wl.out_features
        data = te.placeholder((m_, k_), name="data")
        weight = te.placeholder((n_, k_), name="weight")
        fault = v["fault"]
        if fault == "instantiate":
            raise InstantiationError("this config cannot be scheduled (deliberate)")
        if fault == "hang":
            big = 1 << 20
            a, b, c = (te.reduce_axis((0, big), n) for n in ("ra", "rb", "rc"))
            out = te.compute((m_, n_), lambda i, j: te.sum(
                data[i, (a + b + c) % k_] * weight[j, (a * 7 + b * 3 + c) % k_], axis=[a, b, c]), name="out")
        elif fault == "alloc":
            side = 1 << 15  # 2**30 floats: 4 GiB (int32 indices)
            tmp = te.compute((side, side), lambda i, j: data[i % m_, j % k_] * 2.0, name="tmp")
            out = te.compute((m_, n_), lambda i, j: tmp[i * 32749 % side, j * 16381 % side] + weight[j, 0], name="out")
        elif fault == "segfault":
            far = tvm.tirx.const(1 << 44, "int64")
            out = te.compute((m_, n_), lambda i, j: data[i + far, j % k_] * weight[j, 0], name="out")
        else:
            kk = k_ - 1 if fault == "wrong" else k_
            rk = te.reduce_axis((0, kk), "rk")
            out = te.compute((m_, n_), lambda i, j: te.sum(data[i, rk] * weight[j, rk], axis=rk), name="out")
        sch = s_tir.Schedule(te.create_prim_func([data, weight, out]))
        return sch.mod
