"""Blocked channel layout for whole models: activations in NCHW[x]c, weights in OIHW[x]i[x]o.

As TVM's x86 ``conv2d_NCHWc`` and ONNX Runtime's NCHWc kernels do, every convolution whose input and
output channels divide by the block ``x`` reads and writes activations as ``[N, C/x, H, W, x]``: a
vector of ``x`` channels is contiguous, so the conv's register block stores whole vectors and the
element-wise ops, residual adds and pooling between convolutions stream contiguous vectors too.
Relax's ``ConvertLayout`` carries the layout from conv to conv through the layout-agnostic ops, so
layout transforms stay only where the model needs NCHW (the model's input, a depthwise or grouped
conv, the global pooling before the classifier). A conv whose input channels do not divide by the block
(the first conv on 3 colour channels) reads a smaller input block (NCHW3c) and still writes the model's
block, so the stem's epilogue and pooling run blocked too. Weights are constants: their transform is
folded once at build time (``FoldConstant``), never run per inference.

The block is chosen per target (the fp32 lanes of its widest vector: 16 with AVX-512, 8 with AVX2),
or named (``NCHW8c``, ``NCHW16c``); ``NCHW`` keeps the plain layout.
"""

from __future__ import annotations

import re
from typing import Any

from tensortune.core.targets import fp32_vector_lanes

LAYOUT_CHOICES = ("auto", "NCHW", "NCHW4c", "NCHW8c", "NCHW16c", "NCHW32c")


def vector_lanes(target: dict[str, Any]) -> int:
    """fp32 lanes of the target's widest vector register (4 without AVX)."""
    import tvm
    from tvm.target import codegen

    tgt = tvm.target.Target(target)
    if tgt.kind.name != "llvm":
        return 4
    return fp32_vector_lanes(codegen.llvm_get_cpu_features(tgt))


def channel_block(layout: str, target: dict[str, Any]) -> int | None:
    """The channel block a layout option asks for (None: plain NCHW)."""
    if layout == "NCHW":
        return None
    if layout == "auto":
        return vector_lanes(target)
    m = re.fullmatch(r"NCHW(\d+)c", layout)
    if not m or int(m.group(1)) < 2:
        raise ValueError(f"unknown layout {layout!r}; known: {', '.join(LAYOUT_CHOICES)}")
    return int(m.group(1))


def _number(prim_value: Any) -> float:
    """The number in a Relax PrimValue (an IntImm/FloatImm, or already a Python number)."""
    v = prim_value.value
    return float(getattr(v, "value", v))


def _clip_as_min_max(mod: Any) -> Any:
    """``clip(x, lo, hi)`` (ReLU6) as ``minimum(maximum(x, lo), hi)``: the same values, and binary ops
    with scalars keep any layout, where ``ConvertLayout`` would wrap a clip in two transforms."""
    import tvm
    from tvm import relax
    from tvm.relax.dpl import is_op, rewrite_call, wildcard

    pattern = is_op("relax.clip")(wildcard(), wildcard(), wildcard())

    def rewrite(expr: Any, _matches: Any) -> Any:
        x, lo, hi = expr.args
        dtype = str(x.ty.dtype)  # the struct info of a Relax var (TVM 0.27: ``ty``)
        lo_c = relax.const(_number(lo), dtype)
        hi_c = relax.const(_number(hi), dtype)
        return relax.op.minimum(relax.op.maximum(x, lo_c), hi_c)

    funcs = {gv: rewrite_call(pattern, rewrite, f) if isinstance(f, relax.Function) else f
             for gv, f in mod.functions_items()}
    return tvm.IRModule(funcs, attrs=mod.attrs, global_infos=mod.global_infos)


def to_blocked(mod: Any, block: int) -> Any:
    """The Relax module with its convolutions in NCHW{block}c (see the module docstring)."""
    import tvm
    from tvm import relax

    mod = tvm.transform.Sequential([relax.transform.DecomposeOpsForInference(),
                                    relax.transform.CanonicalizeBindings()])(mod)
    mod = _clip_as_min_max(mod)
    convert = relax.transform.ConvertLayout({}, layout_cb=lambda call: conv_layouts(call, block))
    return relax.transform.DeadCodeElimination()(convert(mod))


def input_block(in_channels: int, block: int) -> int:
    """The input-channel block of a conv: ``block`` where it divides the channels, else the largest
    divisor of the channels below it (a first conv on RGB: 3), so its output is blocked all the same."""
    return max(d for d in range(1, min(block, in_channels) + 1) if in_channels % d == 0)


def conv_layouts(call: Any, block: int) -> dict[str, list[str]]:
    """``ConvertLayout``'s desired layouts for one call: a conv2d whose output channels divide by the
    block writes NCHW{block}c; its input block is ``input_block`` (the stem conv on 3 channels reads
    NCHW3c with an OIHW3i{block}o weight, as TVM's x86 ``conv2d_NCHWc`` does, instead of staying in NCHW
    with a transform after it). Grouped convs keep one block for data and weight."""
    name = getattr(call.op, "name", "")
    if name != "relax.nn.conv2d":
        return {}
    default = {name: [f"NCHW{block}c", f"OIHW{block}i{block}o"]}
    attrs = call.attrs
    shape = getattr(call.args[1].ty, "shape", None)
    if (str(attrs.data_layout) != "NCHW" or str(attrs.kernel_layout) != "OIHW" or int(attrs.groups) != 1
            or shape is None or len(shape) != 4):
        return default
    out_c, in_c = int(shape[0]), int(shape[1])
    if out_c % block or in_c % block == 0:
        return default
    ib = input_block(in_c, block)
    return {name: [f"NCHW{ib}c", f"OIHW{ib}i{block}o", f"NCHW{block}c"]}


def legalize_conv2d(bb: Any, call: Any) -> Any:
    """Relax's conv2d lowering, plus blocked layouts: NCHW[x]c data with OIHW[x]i[x]o weights lowers to
    TOPI's ``conv2d_NCHWc`` compute (the block named ``conv2d_NCHWc``), which our template schedules."""
    from tvm import topi
    from tvm.relax.transform.legalize_ops.nn import _nn_conv2d

    a = call.attrs
    if len(a.data_layout) == 4:
        return _nn_conv2d(bb, call)
    dtype = str(a.out_dtype) if a.out_dtype is not None and str(a.out_dtype) not in ("", "void") else "float32"
    if int(a.groups) != 1:
        return bb.call_te(_grouped_blocked, call.args[0], call.args[1], list(a.strides), list(a.padding),
                          list(a.dilation), int(a.groups), dtype, primfunc_name_hint="group_conv2d_blocked")
    return bb.call_te(topi.nn.conv2d_NCHWc, call.args[0], call.args[1], a.strides, a.padding, a.dilation,
                      a.data_layout, a.out_layout, dtype, primfunc_name_hint="conv2d_NCHWc")


def _grouped_blocked(data: Any, kernel: Any, strides: list[int], padding: list[int], dilation: list[int],
                     groups: int, dtype: str) -> Any:
    """A grouped conv on blocked tensors: unblocked, TOPI's NCHW grouped conv, blocked again."""
    from tvm import te, topi

    n, cb, h, w, b = (int(d) for d in data.shape)
    ob, ib, r, s, bi, bo = (int(d) for d in kernel.shape)
    x = te.compute((n, cb * b, h, w), lambda i, c, y, z: data[i, c // b, y, z, c % b], name="unblock")
    k = te.compute((ob * bo, ib * bi, r, s), lambda o, c, y, z: kernel[o // bo, c // bi, y, z, c % bi, o % bo],
                   name="unblock_weight")
    y = topi.nn.group_conv2d_nchw(x, k, strides, padding, dilation, groups, dtype)
    _, _, oh, ow = (int(d) for d in y.shape)
    return te.compute((n, ob, oh, ow, bo), lambda i, c, yy, z, v: y[i, c * bo + v, yy, z], name="block")


def apply_layout(model: Any, layout: str, target: dict[str, Any], winograd: str = "off") -> Any:
    """``model`` (an ``ImportedModel``) with its convolutions in ``layout``; the model itself when the
    layout is plain NCHW or no convolution's channels divide by the block. ``winograd="auto"``: its
    blocked 3x3 stride-1 convolutions as Winograd convolutions (``tensortune.models.winograd``)."""
    import dataclasses

    from tensortune.models.winograd import WINOGRAD_CHOICES, to_winograd

    if winograd not in WINOGRAD_CHOICES:
        raise ValueError(f"unknown winograd choice {winograd!r}; known: {', '.join(WINOGRAD_CHOICES)}")
    block = channel_block(layout, target)
    if block is None:
        return model
    mod = to_blocked(model.mod, block)
    extra = {**model.extra, "layout": f"NCHW{block}c"}
    if winograd == "auto":
        # the direct-conv graph stays with the model: MetaSchedule, as a peer, tunes that one (it has no
        # Winograd rule for x86; a user of its pipeline gets direct convolutions)
        extra["direct_mod"] = mod
        mod = to_winograd(mod)
        extra["winograd"] = "auto"
    return dataclasses.replace(model, mod=mod, extra=extra)
