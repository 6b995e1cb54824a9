"""``copy.llvm``: a model's data-movement functions (layout transforms, reshapes, transposes) on x86.

TVM lowers a function nobody scheduled as its loop nest stands: one thread, the loops in the order of
the *input*. A layout transform from NCHW to a blocked layout then writes with a stride (the input
transform of a blocked ResNet-18, ``1x3x224x224`` to ``1x1x224x224x3``: 66-112 us on one core, 0.9-1.2%
of the model, about as much as its max pool). MetaSchedule's design space has nothing to decide
there (one sketch, no sampling), so those functions were left to TVM's default lowering.

The schedule puts the loops in the order of the *output* (so every thread writes one contiguous
range), fuses the leading ``parallel`` of them into one parallel loop, and vectorises or unrolls the
innermost. Knobs: ``parallel`` (how many leading output loops form the parallel loop; 0: none, for a
copy too small to pay for waking the pool) and ``inner`` (the innermost loop plain, unrolled or
vectorised). A handful of configs; the tuner measures them like any other task.
"""

from __future__ import annotations

from typing import Any

from tensortune.space import OptionKnob, SearchSpace
from tensortune.templates.base import InstantiationError
from tensortune.templates.tir_schedules import TirTemplate, postprocess
from tensortune.workloads.tir import TirWorkload

MAX_UNROLL = 16  # an innermost loop longer than this is not unrolled
MAX_LANES = 64  # nor vectorised


def _single_spatial_block(func: Any) -> tuple[Any, Any] | None:
    """(schedule, block) of a function made of one spatial block under the root; None otherwise."""
    from tvm import s_tir

    sch = s_tir.Schedule(func)
    blocks = sch.get_child_blocks(sch.get_sblock("root"))
    if len(blocks) != 1:
        return None
    blk = sch.get(blocks[0])
    if any(int(iv.iter_type) != 0 for iv in blk.iter_vars) or len(blk.writes) != 1:
        return None
    if len(sch.get_loops(blocks[0])) != len(blk.iter_vars):
        return None
    return sch, blocks[0]


def output_order(sch: Any, block: Any) -> list[int]:
    """Positions of the block's loops in the order their variables first appear in the write's
    indices (left to right, so ``v0 * 16 + v3`` puts ``v0`` before ``v3``), then the loops that do not
    appear, in their own order."""
    from tvm.tirx.analysis import undefined_vars

    blk = sch.get(block)
    loops = sch.get_loops(block)
    # one loop per iter var, in the same order (``_single_spatial_block`` checked the counts; the
    # functions Relax legalises bind them with ``T.axis.remap``)
    iter_vars = [iv.var for iv in blk.iter_vars]
    order: list[int] = []
    for rng in blk.writes[0].region:
        for var in undefined_vars(rng.min):  # in order of appearance
            i = next((i for i, v in enumerate(iter_vars) if v.same_as(var)), None)
            if i is not None and i not in order:
                order.append(i)
    order += [i for i in range(len(loops)) if i not in order]
    # loops of extent 1 first: they change nothing, and the innermost loop should be a real one
    unit = [i for i in order if int(sch.get(loops[i]).extent) == 1]
    return unit + [i for i in order if i not in unit]


class CpuInjective(TirTemplate):
    name = "copy.llvm"

    def supports(self, wl: Any) -> bool:
        """A single spatial block with something to decide (a reshape of 512 values has nothing)."""
        return (isinstance(wl, TirWorkload) and wl.kind == "elementwise"
                and _single_spatial_block(wl.mod["main"]) is not None and self.space(wl).size > 1)

    @staticmethod
    def _output_loops(wl: TirWorkload) -> tuple[Any, list[Any]]:
        """The function's schedule and its block's loops in the output's order (``output_order``)."""
        got = _single_spatial_block(wl.mod["main"])
        if got is None:
            raise InstantiationError(f"{wl.describe()} is not a single spatial block")
        sch, block = got
        loops = sch.get_loops(block)
        return sch, [loops[i] for i in output_order(sch, block)]  # type: ignore[index]

    def space(self, wl: TirWorkload) -> SearchSpace:
        sch, ordered = self._output_loops(wl)
        ext = [int(sch.get(loop).extent) for loop in ordered]
        # fusing k leading loops; a loop of extent 1 adds nothing to the one before it (same config)
        par = [0] + [k for k in range(1, len(ext)) if ext[k - 1] > 1][:3]
        inner = ext[-1]
        opts = ["none"] + (["unroll"] if inner <= MAX_UNROLL else []) + (["vectorize"] if inner <= MAX_LANES else [])
        # the innermost loop is never part of the parallel loop (k < len(ext)), so every pair is valid
        return SearchSpace([OptionKnob("parallel", par), OptionKnob("inner", opts)], [])

    def schedule(self, wl: TirWorkload, v: dict[str, Any]) -> Any:
        sch, ordered = self._output_loops(wl)
        sch.reorder(*ordered)
        n_par = int(v["parallel"])
        if v["inner"] == "vectorize":
            sch.vectorize(ordered[-1])
        elif v["inner"] == "unroll":
            sch.unroll(ordered[-1])
        if n_par > 0:
            sch.parallel(sch.fuse(*ordered[:n_par]) if n_par > 1 else ordered[0])
        return postprocess(sch)
