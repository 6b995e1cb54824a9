"""Task extraction: lower a Relax model to fused TIR functions (conv2d + bias + relu, ...) exactly as
the tuned build will, deduplicate them, and count how often each is called (its weight)."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from typing import Any

from tensortune.models.importer import ImportedModel
from tensortune.workloads.tir import block_kinds, function_key


def fusion_passes(target: Any) -> list[Any]:
    """The passes from a weight-bound Relax module to fused TIR. The same list runs at extraction and
    at the tuned build, so every tuned function matches its database entry structurally."""
    from tvm import relax
    from tvm.relax import pipeline as rp

    try:
        dispatch = list(rp.library_dispatch_passes(target))
    except (ValueError, AttributeError):
        dispatch = []
    from tensortune.models.layout import legalize_conv2d

    return [relax.transform.DecomposeOpsForInference(), relax.transform.CanonicalizeBindings(), *dispatch,
            relax.transform.LegalizeOps({"relax.nn.conv2d": legalize_conv2d}), relax.transform.AnnotateTIROpPattern(),
            relax.transform.FoldConstant(), relax.transform.FuseOps(), relax.transform.FuseTIR(),
            relax.transform.CanonicalizeBindings(), relax.transform.AttachAttrLayoutFreeBuffers()]


def fuse_model(model: ImportedModel, target: Any) -> Any:
    """The model with its weights bound as constants, lowered to fused TIR functions."""
    import tvm
    from tvm import relax

    mod = relax.transform.BindParams("main", model.params)(model.mod)
    with target, tvm.transform.PassContext(opt_level=3):
        return tvm.transform.Sequential(fusion_passes(target))(mod)


@dataclass
class ModelTask:
    """One unique fused TIR function of a model."""

    name: str  # the function's name in the fused module (first occurrence)
    mod: Any  # IRModule with the PrimFunc as "main"
    weight: int  # calls in the model
    flops: float
    kind: str  # "conv2d", "group_conv2d", "depthwise_conv2d", "dense", "pool", "reduction", "elementwise"
    key: str = ""  # content hash, stable across runs
    callers: list[str] = field(default_factory=list)

    @property
    def arg_bytes(self) -> int:
        """Bytes of the function's arguments (inputs, weights, output): the least it moves per call. A task
        that streams far more bytes than its FLOPs can hide (AlexNet's dense layers: 151 MB of weights for
        75 MFLOP) runs at the machine's memory bandwidth, not its FMA rate."""
        return prim_func_arg_bytes(self.mod["main"])


def prim_func_arg_bytes(func: Any) -> int:
    """Sum over a PrimFunc's tensor arguments of their static size in bytes (0 for a dynamic dimension)."""
    import tvm
    from tvm.s_tir.meta_schedule.arg_info import ArgInfo

    total = 0
    for info in ArgInfo.from_prim_func(func):
        n = 1
        for d in info.shape:
            if not isinstance(d, int | tvm.tirx.IntImm):  # a symbolic dimension: size unknown
                n = 0
                break
            n *= int(d)
        dt = tvm.DataType(str(info.dtype))
        total += n * ((dt.bits * dt.lanes + 7) // 8)
    return total


def _calls(mod: Any) -> list[str]:
    """GlobalVar names of the TIR functions called from main, in order, with repetition."""
    from tvm import relax

    names: list[str] = []

    def visit(e: Any) -> None:
        if isinstance(e, relax.Call) and e.op.name == "relax.call_tir":
            names.append(e.args[0].name_hint)

    relax.analysis.post_order_visit(mod["main"].body, visit)
    return names


def _kind(func: Any) -> str:
    """Classify a fused function by its main reduction block."""
    blocks = block_kinds(func)
    reducers = [n for n, r in blocks.items() if r]
    if any(n.startswith("conv2d") for n in reducers) or "bgemm" in reducers:  # bgemm: a Winograd conv2d
        return "conv2d"
    grouped = [n for n in reducers if n.startswith(("group_conv2d", "depthwise_conv2d"))]
    if grouped:  # one input channel per group (the first reduction axis has extent 1) is depthwise
        return "depthwise_conv2d" if _first_reduction_extent(func, grouped[0]) == 1 else "group_conv2d"
    if any("matmul" in n or "dense" in n for n in reducers):
        return "dense"
    if any("pool" in n for n in blocks):
        return "pool"
    if reducers:
        return "reduction"
    return "elementwise"


def _first_reduction_extent(func: Any, block: str) -> int | None:
    from tvm import s_tir

    sch = s_tir.Schedule(func)
    blk = sch.get(sch.get_sblock(block))
    for iv in blk.iter_vars:
        if int(iv.iter_type) == 2:
            try:
                return int(iv.dom.extent)
            except TypeError:
                return None
    return None


def extract_tasks(model: ImportedModel, target: Any) -> tuple[Any, list[ModelTask]]:
    """The fused module and its unique tasks, largest total FLOPs (weight x FLOPs) first."""
    import tvm
    from tvm import s_tir

    fused = fuse_model(model, target)
    calls = _calls(fused)
    by_key: dict[str, ModelTask] = {}
    for gv, func in fused.functions_items():
        if not isinstance(func, tvm.tirx.PrimFunc):
            continue
        n = calls.count(gv.name_hint)
        if n == 0:
            continue
        func = func.with_attr("global_symbol", "main")
        tmod = tvm.IRModule({"main": func})
        # structurally equal functions (same shapes, same fused ops) are one task
        key = function_key(tmod)
        if key in by_key:
            by_key[key].weight += n
            by_key[key].callers.append(gv.name_hint)
            continue
        try:
            flops = float(s_tir.analysis.estimate_tir_flops(tmod))
        except Exception:
            flops = 0.0
        kind = _kind(func)
        by_key[key] = ModelTask(gv.name_hint, tmod, n, flops, kind, key, [gv.name_hint])
    tasks = sorted(by_key.values(), key=lambda t: -t.weight * t.flops)
    return fused, tasks


def save_task(task: ModelTask, directory: str) -> str:
    """Write the task's module where worker processes can load it (``tir:<key>`` workloads)."""
    import tvm

    os.makedirs(directory, exist_ok=True)
    path = os.path.join(directory, f"{task.key}.json")
    if not os.path.exists(path):
        tmp = path + f".{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump({"name": task.name, "kind": task.kind, "flops": task.flops, "mod": tvm.ir.save_json(task.mod)}, f)
        os.replace(tmp, path)
    return path
