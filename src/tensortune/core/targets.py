"""Targets: TVM target dicts, their canonical key, and the ones a user names on the command line."""

from __future__ import annotations

import json
import os
from collections.abc import Collection
from typing import Any


def target_key(target: dict[str, Any]) -> str:
    return json.dumps(target, sort_keys=True, separators=(",", ":"))


def llvm_cpu_name() -> str:
    """LLVM's name for this machine's CPU (``znver5``), or '?' without TVM."""
    try:
        from tvm.target import codegen

        return str(codegen.llvm_get_system_cpu())
    except Exception:  # pragma: no cover - tvm is a dependency
        return "?"


def llvm_cpu_features(cpu: str) -> frozenset[str]:
    """The LLVM features of CPU name ``cpu`` (instruction sets and tuning flags: ``avx512f``,
    ``prefer-256-bit``, ...), empty for a name LLVM does not know."""
    import tvm
    from tvm.target import codegen

    try:
        if not codegen.llvm_is_valid_cpu(cpu, str(codegen.llvm_get_system_triple())):
            return frozenset()
        return frozenset(str(k) for k in codegen.llvm_get_cpu_features(tvm.target.Target({"kind": "llvm", "mcpu": cpu})))
    except Exception:  # an LLVM without the query: every CPU equally near
        return frozenset()


def fp32_vector_lanes(features: Collection[str]) -> int:
    """fp32 lanes of the widest vector register a set of LLVM features gives (4 without AVX)."""
    return 16 if "avx512f" in features else 8 if "avx" in features else 4


def cpu_model() -> str:
    """The CPU model as /proc/cpuinfo names it ('' where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return ""


def default_cpu_target(num_cores: int | None = None) -> dict:
    """The local CPU as a TVM target dict (host LLVM cpu name, so AVX-512 is used where present)."""
    from tvm.target import codegen

    return {"kind": "llvm", "mcpu": codegen.llvm_get_system_cpu(), "num-cores": int(num_cores or os.cpu_count() or 1)}


def parse_target(text: str) -> dict:
    """``llvm`` (this CPU), ``cuda``, ``vta-sim``, or a JSON target dict."""
    text = text.strip()
    if text == "llvm":
        return default_cpu_target()
    if text == "cuda":
        return {"kind": "cuda", "arch": "sm_90"}
    if text == "vta-sim":
        return {"kind": "vta-sim"}
    try:
        t = json.loads(text)
    except json.JSONDecodeError:
        raise ValueError(f"unknown target {text!r}: use llvm, cuda, or a JSON target dict") from None
    if not isinstance(t, dict) or "kind" not in t:
        raise ValueError(f"a target dict needs a 'kind': {text!r}")
    return t


def device_name() -> str:
    """This machine as records and tables name the machine they were measured on: the CPU model and
    LLVM's CPU name ("AMD EPYC (znver5)")."""
    return f"{cpu_model()} ({llvm_cpu_name()})"
