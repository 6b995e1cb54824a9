"""TVM's tensor intrinsics, registered for the target a process schedules for, not for every target TVM knows.

``TuneContext.__init__`` (every MetaSchedule design space: a whole model's MetaSchedule-space tasks, MetaSchedule
as a peer) first imports ``tvm.s_tir.tensor_intrin``, whose ``__init__`` registers every intrinsic TVM ships:
CUDA's tensor-core and ``ldmatrix`` families, ROCm, Metal, Hexagon, Arm, RISC-V and x86, each parsed from
TVMScript: 15.5-18.1 s per process on the Zen 5 VM of stop 92, against 0.15-0.20 s for x86's alone. A whole-model
run pays it when its MetaSchedule-space tasks' design spaces are not cached yet (a model's first run on a machine:
ResNet-18 at 200 measurements, tuning 93-94 -> 70-73 s; results/transfer/znver5-s92/intrinsics.sh).
MetaSchedule's CPU rules name only the x86 (or Arm, RISC-V) intrinsics: on a CPU with AVX-512 or VNNI its
``MultiLevelTilingWithIntrin`` rule asks for ``dot_16x4_avx512`` / ``dot_16x4_vnni`` when the rules are created, so
those must be registered, and nothing else is read.

:func:`register_tensor_intrinsics` enters the package in ``sys.modules`` without running its ``__init__`` (the
package's own import machinery, its ``__path__`` kept), then imports its modules for the target kind alone. Any
later import of another of its modules (``tvm.s_tir.tensor_intrin.cuda``) still loads that module on demand. Where
the package was imported in full already, it does nothing. A CUDA target registers the CUDA intrinsics.
"""

from __future__ import annotations

import importlib
import importlib.util
import platform
import sys
from typing import Any

PACKAGE = "tvm.s_tir.tensor_intrin"
# modules of the package per target kind (and, for llvm, per host architecture)
_LLVM = {"x86_64": ("x86",), "amd64": ("x86",), "aarch64": ("arm_cpu",), "arm64": ("arm_cpu",),
         "riscv64": ("riscv_cpu",)}
_GPU = {"cuda": ("cuda",), "rocm": ("rocm",), "metal": ("metal",), "hexagon": ("hexagon",)}


def intrinsic_modules(target_kind: str, machine: str | None = None) -> tuple[str, ...] | None:
    """The modules of ``tvm.s_tir.tensor_intrin`` a target kind needs; None where it is not known (then all)."""
    if target_kind == "llvm":
        return _LLVM.get((machine or platform.machine()).lower())
    return _GPU.get(target_kind)


def register_tensor_intrinsics(target: Any) -> tuple[str, ...]:
    """Register the tensor intrinsics ``target`` (a target dict, a ``tvm.target.Target`` or a kind name) can use,
    before a ``TuneContext`` is made for it; returns the modules imported now (empty where nothing was needed)."""
    kind = target if isinstance(target, str) else _kind(target)
    if PACKAGE in sys.modules and not getattr(sys.modules[PACKAGE], "_tensortune_partial", False):
        return ()  # imported in full already
    modules = intrinsic_modules(kind)
    if modules is None:
        importlib.import_module(PACKAGE)  # an unknown kind: every intrinsic, as TVM does
        return (PACKAGE,)
    pkg = sys.modules.get(PACKAGE)
    if pkg is None:
        import tvm.s_tir

        spec = importlib.util.find_spec(PACKAGE)
        if spec is None or spec.loader is None:  # pragma: no cover - part of every TVM wheel
            raise RuntimeError(f"TVM has no {PACKAGE}")
        pkg = importlib.util.module_from_spec(spec)  # the package, its __init__ not run
        pkg._tensortune_partial = True
        sys.modules[PACKAGE] = pkg
        tvm.s_tir.tensor_intrin = pkg  # what `from tvm.s_tir import tensor_intrin` reads
    done = []
    for name in modules:
        full = f"{PACKAGE}.{name}"
        if full not in sys.modules:
            importlib.import_module(full)
            done.append(full)
    return tuple(done)


def _kind(target: Any) -> str:
    if isinstance(target, dict):
        return str(target.get("kind", "llvm"))
    return str(target.kind.name)
