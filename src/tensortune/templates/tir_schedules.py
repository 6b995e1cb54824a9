"""Templates over a model's fused TIR functions (``tir:`` workloads).

* ``ms-space.llvm``: MetaSchedule's own design space for the function (post-order-apply with its
  x86 rules), with every sampling decision of the sketch traces exposed as a knob: a perfect tile
  becomes a split knob, a categorical choice an option knob, a compute location an option knob over
  the locations that apply, and the sketch itself one more knob. Any of our explorers then tunes
  MetaSchedule's space; the result is a MetaSchedule trace.
* ``conv2d_nchw_fused.llvm``: our conv2d template (the knobs and loop nest of ``conv2d_nchw.llvm``)
  applied to a fused conv2d function (conv + batch-norm arithmetic + bias + residual + relu), with
  the epilogue computed in the register block. The weight layout follows the loop nest through
  MetaSchedule's ``RewriteLayout`` (weights are constants: the deployed model transforms them once,
  at build time), which is what ``conv2d_nchw.llvm`` does by packing.

Both schedule through a traced ``s_tir.Schedule`` followed by MetaSchedule's CPU post-processors, so
the best config of either is stored as a MetaSchedule tuning record and compiled into the model.
"""

from __future__ import annotations

import json
import os
from typing import Any

from tensortune.space import Knob, OptionKnob, SearchSpace
from tensortune.space.knobs import enumerate_splits
from tensortune.templates.base import InstantiationError, Template
from tensortune.templates.cpu_conv2d import REGISTER_BLOCK, SPATIAL_AXES, VECTOR_LANES
from tensortune.workloads.conv2d import Conv2d
from tensortune.workloads.tir import TirWorkload, task_dir


def postprocess(sch: Any) -> Any:
    """MetaSchedule's CPU post-processors (RewriteTensorize omitted: no tensor intrinsics here)."""
    from tvm.s_tir.meta_schedule import postproc

    sch.enter_postproc()
    for p in (postproc.DisallowDynamicLoop(), postproc.RewriteParallelVectorizeUnroll(),
              postproc.RewriteReductionBlock(), postproc.RewriteLayout()):
        if not p.apply(sch):
            raise InstantiationError(f"MetaSchedule post-processor {type(p).__name__} rejected the schedule")
    return sch


class TirTemplate(Template):
    """A template whose schedules are traced, so they can be stored as MetaSchedule records."""

    target_kind = "llvm"
    ops = ("tir",)

    def schedule(self, wl: TirWorkload, values: dict[str, Any]) -> Any:
        """The post-processed, traced ``s_tir.Schedule`` for a config."""
        raise NotImplementedError

    def instantiate(self, wl: TirWorkload, values: dict[str, Any]) -> Any:
        return self.schedule(wl, values).mod


# ---------------------------------------------------------------------------- MetaSchedule design space
def _decision_knobs(mod: Any, target: dict[str, Any]) -> list[dict[str, Any]]:
    """Sketches of MetaSchedule's design space: each its trace (JSON) and its decisions' options."""
    import tvm
    from tvm.s_tir import meta_schedule as ms

    from tensortune.core.intrinsics import register_tensor_intrinsics

    register_tensor_intrinsics(target)  # this target's alone, not all TVM ships (core/intrinsics.py)
    ctx = ms.TuneContext(mod=mod, target=tvm.target.Target(target), space_generator="post-order-apply",
                         task_name="task", num_threads=1)
    return sketch_knobs(mod, ctx.generate_design_space())


def sketch_knobs(mod: Any, design_spaces: list[Any]) -> list[dict[str, Any]]:
    """Each sketch's trace (JSON, postprocessing removed) and its decisions with their options."""
    from tvm import s_tir
    from tvm.s_tir.schedule import Trace

    sketches = []
    for sp in design_spaces:
        trace = sp.trace
        tj = _py(trace.as_json(remove_postproc=True))
        seen = _tile_extents(mod, trace)
        tiles = iter(seen)
        knobs = []
        for j, (inst_pos, dec) in enumerate(tj[1]):
            inst = tj[0][inst_pos]
            kind = inst[0]
            if kind == "SamplePerfectTile":
                n, max_inner = int(inst[2][0]), int(inst[2][1])
                ext = next(tiles)
                opts = [list(t) for t in enumerate_splits(ext, n) if max_inner <= 0 or t[-1] <= max_inner]
                knobs.append({"kind": kind, "options": opts, "default": list(dec)})
            elif kind == "SampleCategorical":
                cands = [int(c) if isinstance(c, int) else c for c in inst[2][0]]
                knobs.append({"kind": kind, "options": list(range(len(cands))), "labels": cands, "default": int(dec)})
            elif kind == "SampleComputeLocation":
                valid = []
                for c in range(-2, 24):
                    t2 = json.loads(json.dumps(tj))
                    t2[1][j][1] = c
                    try:
                        Trace.apply_json_to_schedule(t2, s_tir.Schedule(mod))
                    except Exception:
                        continue
                    valid.append(c)
                knobs.append({"kind": kind, "options": valid or [int(dec)], "default": int(dec)})
            else:
                knobs.append({"kind": kind, "options": [dec], "default": dec})
        sketches.append({"trace": tj, "knobs": knobs})
    return sketches


class MsSpace(TirTemplate):
    name = "ms-space.llvm"

    def _sketches(self, wl: TirWorkload, target: dict[str, Any] | None) -> list[dict[str, Any]]:
        path = os.path.join(task_dir(), f"{wl.task_key}.ms-space.json")
        if os.path.exists(path):
            with open(path) as f:
                return json.load(f)
        if target is None:
            raise InstantiationError(f"no design space stored for {wl.key} and no target to generate it")
        sketches = _decision_knobs(wl.mod, target)
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(sketches, f)
        os.replace(tmp, path)
        return sketches

    def space(self, wl: TirWorkload) -> SearchSpace:
        return self.space_for(wl, None)

    def space_for(self, wl: TirWorkload, target: dict[str, Any] | None) -> SearchSpace:
        sketches = self._sketches(wl, target)
        if not sketches:
            raise InstantiationError(f"MetaSchedule generated no design space for {wl.describe()}")
        return sketch_space(sketches)

    def trace_json(self, wl: TirWorkload, values: dict[str, Any]) -> Any:
        return trace_with(self._sketches(wl, None), values)

    def schedule(self, wl: TirWorkload, values: dict[str, Any]) -> Any:
        from tvm import s_tir
        from tvm.s_tir.schedule import Trace

        sch = s_tir.Schedule(wl.mod)
        try:
            Trace.apply_json_to_schedule(self.trace_json(wl, values), sch)
        except Exception as e:
            raise InstantiationError(f"trace does not apply: {str(e).strip()[-300:]}") from None
        return postprocess(sch)


def _signature(s: dict[str, Any]) -> str:
    return json.dumps([(k["kind"], k["options"]) for k in s["knobs"]])


def sketch_group(sketches: list[dict[str, Any]]) -> list[int]:
    """The sketches tuned: those sharing the decision signature of most sketches (the first such group
    on ties). Sketches with other decision lists are left out of the space."""
    sigs = [_signature(s) for s in sketches]
    best = max(sigs, key=lambda g: (sigs.count(g), -sigs.index(g)))
    return [i for i, g in enumerate(sigs) if g == best]


def sketch_space(sketches: list[dict[str, Any]]) -> SearchSpace:
    """A knob per decision of the sketch group, plus the sketch itself."""
    group = sketch_group(sketches)
    knobs: list[Knob] = [OptionKnob("sketch", group)]
    for j, k in enumerate(sketches[group[0]]["knobs"]):
        opts = [tuple(o) if isinstance(o, list) else o for o in k["options"]]
        knobs.append(Knob(f"d{j}.{k['kind']}", tuple(opts), kind="split" if k["kind"] == "SamplePerfectTile" else "option"))
    return SearchSpace(knobs)


def trace_with(sketches: list[dict[str, Any]], values: dict[str, Any]) -> Any:
    """The chosen sketch's trace JSON with the knob values as its decisions."""
    s = sketches[int(values["sketch"])]
    tj = json.loads(json.dumps(s["trace"]))
    for j, k in enumerate(s["knobs"]):
        v = values[f"d{j}.{k['kind']}"]
        tj[1][j][1] = list(v) if isinstance(v, tuple | list) else v
    return tj


def config_of_trace(sketches: list[dict[str, Any]], space: SearchSpace, trace: Any) -> Any:
    """The config of ``space`` whose schedule is ``trace`` (a measured schedule's trace, e.g. from a
    MetaSchedule database), or None when no sketch of the group has its instructions or a decision is
    not among the knob's options."""
    tj = _py(trace.as_json(remove_postproc=True))
    values: dict[str, Any] = {}
    for si in sketch_group(sketches):
        s = sketches[si]
        if s["trace"][0] != tj[0] or len(tj[1]) != len(s["knobs"]):
            continue
        values = {"sketch": si}
        for j, k in enumerate(s["knobs"]):
            dec = tj[1][j][1]
            values[f"d{j}.{k['kind']}"] = tuple(dec) if isinstance(dec, list) else dec
        try:
            return space.from_json(values)
        except (KeyError, ValueError, IndexError):
            return None
    return None


def _tile_extents(mod: Any, trace: Any) -> list[int]:
    """Extents of the loops the trace's SamplePerfectTile instructions tile, in order (by replay)."""
    from tvm import s_tir

    sch = s_tir.Schedule(mod)
    seen: list[int] = []

    def capture(inst: Any, inputs: Any, attrs: Any, decision: Any) -> Any:
        if inst.kind.name == "SamplePerfectTile":
            seen.append(int(sch.get(inputs[0]).extent))
        return decision

    trace.apply_to_schedule(sch, remove_postproc=True, decision_provider=capture)
    return seen


def _py(obj: Any) -> Any:
    """A trace's JSON form (TVM containers and immediates) as plain Python."""
    import tvm

    if isinstance(obj, bool | int | float | str) or obj is None:
        return obj
    if isinstance(obj, tvm.tirx.IntImm):
        return int(obj.value)
    if isinstance(obj, tvm.tirx.FloatImm):
        return float(obj.value)
    if isinstance(obj, dict) or hasattr(obj, "items"):
        return {str(k): _py(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple) or hasattr(obj, "__len__"):
        return [_py(x) for x in obj]
    return str(obj)


# ---------------------------------------------------------------------------- our conv2d on a fused function
def conv_params(wl: TirWorkload) -> Conv2d | None:
    """The conv2d a fused function computes (NCHW data, KCRS weight), or None if it is not one."""
    from tensortune.workloads.tir import block_kinds

    if wl.kind != "conv2d":
        return None
    blocks = block_kinds(wl.mod["main"])
    if "conv2d_nchw" not in blocks:
        return None
    func = wl.mod["main"]
    data_shape, w_shape = wl.arg_specs[0][0], wl.arg_specs[1][0]
    if len(data_shape) != 4 or len(w_shape) != 4:
        return None
    n, c, h, w = data_shape
    k, c2, r, s = w_shape
    if c2 != c:
        return None  # grouped convolution
    return _conv_geometry(func, "conv2d_nchw", "pad_temp", (n, c, h, w, k, r, s))


def _conv_geometry(func: Any, conv_block: str, pad_block: str, dims: tuple[int, ...]) -> Conv2d | None:
    """The conv2d with these (N, C, H, W, K, R, S) whose output and padded input match the blocks' loop
    extents (stride and padding read from them); None if no conv2d does."""
    from tvm import s_tir

    n, c, h, w, k, r, s = dims
    sch = s_tir.Schedule(func)
    conv = sch.get(sch.get_sblock(conv_block))
    oh, ow = (int(conv.iter_vars[2].dom.extent), int(conv.iter_vars[3].dom.extent))
    try:
        pad_blk = sch.get(sch.get_sblock(pad_block))
        ph_tot = int(pad_blk.iter_vars[2].dom.extent) - h
        pw_tot = int(pad_blk.iter_vars[3].dom.extent) - w
    except Exception:
        ph_tot = pw_tot = 0
    ph, pw = ph_tot // 2, pw_tot // 2
    sh = (h + ph_tot - r) // (oh - 1) if oh > 1 else 1
    sw = (w + pw_tot - s) // (ow - 1) if ow > 1 else 1
    cand = Conv2d.make(n, c, h, w, k, (r, s), (max(sh, 1), max(sw, 1)), (ph, pw))
    return cand if cand.out_hw == (oh, ow) else None


class FusedConv2d(TirTemplate):
    name = "conv2d_nchw_fused.llvm"
    conv_block, pad_block = "conv2d_nchw", "pad_temp"
    register_block = REGISTER_BLOCK  # the knobs of conv2d_nchw.llvm
    vector_lanes = VECTOR_LANES  # fixed to the layout's block in the blocked subclasses: no variants there
    spatial_axes = SPATIAL_AXES

    def supports(self, wl: Any) -> bool:
        return isinstance(wl, TirWorkload) and conv_params(wl) is not None

    def space(self, wl: TirWorkload) -> SearchSpace:
        from tensortune.templates.cpu_conv2d import CpuConv2d

        conv = conv_params(wl)
        if conv is None:
            raise InstantiationError(f"{wl.describe()} is not a conv2d the fused template covers")
        return CpuConv2d().space(conv)

    def schedule(self, wl: TirWorkload, v: dict[str, Any]) -> Any:
        from tvm import s_tir

        from tensortune.templates.cpu_conv2d import finish_conv, tile_conv
        from tensortune.workloads.tir import block_kinds

        sch = s_tir.Schedule(wl.mod)
        conv = sch.get_sblock(self.conv_block)
        names = list(block_kinds(wl.mod["main"]))
        # the epilogue (batch-norm arithmetic, bias, residual, relu) folds into the output block
        out = fold_epilogue(sch, self.conv_block, "conv2d", keep=(self.pad_block,))
        n, f, y, x, rc, ry, rx = self._channel_tiles(sch, conv, v)
        outer, x1l, rc0 = tile_conv(sch, v, n, f, y, x, rc, ry, rx)
        sch.reverse_compute_at(out, x1l)
        finish_conv(sch, conv, outer, rc0, v, self.pad_block if self.pad_block in names else None)
        return postprocess(sch)

    def _channel_tiles(self, sch: Any, conv: Any, v: dict[str, Any]) -> tuple[Any, ...]:
        """The conv block's loops with the output channels split by ``tile_f`` into (parallel, middle,
        register, vector): (n, f, y, x, rc, ry, rx)."""
        n, ko, y, x, rc, ry, rx = sch.get_loops(conv)
        return n, tuple(sch.split(ko, list(v["tile_f"]))), y, x, rc, ry, rx


class FusedConv2dReduced(FusedConv2d):
    """The same schedule on the reduced space of ``conv2d_nchw.llvm-small`` (vector width 8 or 16,
    register tiles of whole output rows/columns, a few reduction blocks, unrolling off or 512): one to
    ten thousand configs a layer instead of millions, many of them good on AVX2/AVX-512 CPUs. On the
    ground-truth layers a random search of it reaches 95% of its optimum within 36-115 measurements,
    which is what a whole-model budget gives each convolution. Every config is a config of the full
    template, so a user who wants the full space loses nothing stored."""

    name = "conv2d_nchw_fused.llvm-small"

    def supports(self, wl: Any) -> bool:
        return super().supports(wl) and self.space(wl).size > 0

    def space(self, wl: TirWorkload) -> SearchSpace:
        from tensortune.templates.cpu_conv2d import CpuConv2dSmall

        conv = conv_params(wl)
        if conv is None:
            raise InstantiationError(f"{wl.describe()} is not a conv2d the fused template covers")
        return CpuConv2dSmall().space(conv)


# ---------------------------------------------------------------------------- the same on a blocked layout
def blocked_conv_params(wl: TirWorkload) -> tuple[Conv2d, int] | None:
    """The conv2d a fused ``conv2d_NCHWc`` function computes (NCHW[x]c data, OIHW[x]i[x]o weight) and
    its output channel block ``x`` (the vector); None if it is not one. The input block may be smaller
    (a first conv on 3 channels reads NCHW3c): the reduction runs over all input channels either way."""
    from tensortune.workloads.tir import block_kinds

    if wl.kind != "conv2d" or "conv2d_NCHWc" not in block_kinds(wl.mod["main"]):
        return None
    data_shape, w_shape = wl.arg_specs[0][0], wl.arg_specs[1][0]
    if len(data_shape) != 5 or len(w_shape) != 6:
        return None
    n, cb, h, w, b = data_shape
    ob, ib, r, s, bi, bo = w_shape
    if not (b == bi and ib == cb):
        return None
    conv = _conv_geometry(wl.mod["main"], "conv2d_NCHWc", "data_pad", (n, cb * b, h, w, ob * bo, r, s))
    return None if conv is None else (conv, bo)


MAX_TAIL_COLUMNS = 16  # the widest register tile of columns offered with a tail


def with_column_tails(space: SearchSpace, width: int) -> SearchSpace:
    """``space`` with register tiles of output columns that need not divide the width (``--conv-space
    tails``): ``tile_x`` gains
    ``[ceil(width / c), 1, c]`` for every ``c`` up to 16 that does not divide it; the last tile of a row
    is then a tail the schedule predicates (no column is computed twice or read out of bounds).

    Why: ResNet's widths (56, 28, 14, 7) have no divisor 3, 5 or 6, and on AVX2 (16 vector registers) the
    tiles that fill the registers best are 2 or 4 vectors of output channels x 3, 5 or 6 columns. Stop 38
    (a Zen 3 EPYC, ``znver3``, warm, 2 threads, ResNet-18's 256-channel 14x14 3x3 conv): 2 vectors x 5
    columns (a tail of 4) ran at 164-166 GFLOP/s against 139-143 for the best dividing tile the search had
    found (``results/models/znver3-s37/tail-layer3.txt``); on other layers such tiles were slower, which is
    what the search is for. The options are appended
    after the dividing ones, so a config of the full space keeps its values here and the first option (what
    the transfer features read the extent from) is unchanged."""
    import dataclasses

    tails = tuple((-(-width // c), 1, c) for c in range(2, min(MAX_TAIL_COLUMNS, width - 1) + 1) if width % c)
    knobs = [dataclasses.replace(k, options=k.options + tuple(t for t in tails if t not in k.options))
             if k.name == "tile_x" else k for k in space.knobs]
    return SearchSpace(knobs, space.constraints, space.penalty_fn)


class FusedConv2dBlocked(FusedConv2d):
    """``conv2d_nchw_fused.llvm`` on a blocked layout: the same knobs and loop nest, with the vector of
    output channels (the innermost output-channel factor) fixed to the layout's block. The register
    block stores whole vectors into the NCHW[x]c output, the fused epilogue on them; the weight is
    already packed by the layout (folded at build time), so nothing is rewritten."""

    name = "conv2d_nchwc_fused.llvm"
    conv_block, pad_block = "conv2d_NCHWc", "data_pad"

    def supports(self, wl: Any) -> bool:
        return isinstance(wl, TirWorkload) and blocked_conv_params(wl) is not None and self.space(wl).size > 0

    def _base_space(self, conv: Conv2d) -> SearchSpace:
        from tensortune.templates.cpu_conv2d import CpuConv2d

        return CpuConv2d().space(conv)

    def space(self, wl: TirWorkload) -> SearchSpace:
        got = blocked_conv_params(wl)
        if got is None:
            raise InstantiationError(f"{wl.describe()} is not a blocked conv2d")
        conv, block = got
        return self._base_space(conv).restrict({"tile_f": lambda t: t[3] == block})

    def _channel_tiles(self, sch: Any, conv: Any, v: dict[str, Any]) -> tuple[Any, ...]:
        """The output-channel chunks split by the first three factors of ``tile_f``; the layout's block
        is the vector."""
        n, oc_chunk, y, x, oc_block, rc, ry, rx = sch.get_loops(conv)
        return n, (*sch.split(oc_chunk, list(v["tile_f"][:3])), oc_block), y, x, rc, ry, rx


class FusedConv2dBlockedTails(FusedConv2dBlocked):
    """The blocked template whose register tiles of output columns may leave a tail (``--conv-space tails``,
    :func:`with_column_tails`): the loop nest is the same, the column split is not a perfect one (the
    schedule predicates the last tile of a row; the fused epilogue stores only columns that exist)."""

    name = "conv2d_nchwc_fused.llvm-tails"

    def space(self, wl: TirWorkload) -> SearchSpace:
        got = blocked_conv_params(wl)
        if got is None:
            raise InstantiationError(f"{wl.describe()} is not a blocked conv2d")
        return with_column_tails(super().space(wl), got[0].out_hw[1])


class FusedConv2dBlockedReduced(FusedConv2dBlocked):
    """The blocked template on the reduced space of ``conv2d_nchw.llvm-small`` (``--conv-space reduced``)."""

    name = "conv2d_nchwc_fused.llvm-small"

    def _base_space(self, conv: Conv2d) -> SearchSpace:
        from tensortune.templates.cpu_conv2d import CpuConv2dSmall

        return CpuConv2dSmall().space(conv)


def fold_epilogue(sch: Any, block: str, what: str, keep: tuple[str, ...] = ()) -> Any:
    """Accumulate the reduction ``block`` in registers (a ``local`` cache) and fold the element-wise epilogue that
    follows it (bias, batch-norm arithmetic, residual, activation) into the function's one output block, which is
    returned; where ``block`` is itself the output, the cache's write-back block is. ``keep``: blocks left as they
    are (a padding stage). A function with more than one output is refused (``what`` names it)."""
    from tensortune.workloads.tir import block_kinds

    names = list(block_kinds(sch.mod["main"]))
    outputs = {sch.get(b).name_hint for b in sch.get_output_blocks(sch.get_sblock("root"))}
    if len(outputs) != 1:
        raise InstantiationError(f"fused {what} with {len(outputs)} outputs")
    out = next(iter(outputs))
    wb = sch.cache_write(sch.get_sblock(block), 0, "local")
    if out == block:
        return wb
    sch.compute_inline(wb)
    for name in _topological(sch, names):
        if name not in (block, out, *keep):
            sch.compute_inline(sch.get_sblock(name))
    return sch.get_sblock(out)


def _topological(sch: Any, names: list[str]) -> list[str]:
    """Block names in execution order (producers first)."""
    import re

    order = re.findall(r'T\.sblock\("([^"]+)"\)', sch.mod["main"].script())
    return [n for n in order if n in names]
