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


# LLVM features that name instructions a CPU must have to run the code (the rest are tuning flags or
# features /proc/cpuinfo does not list); ``evex512`` (LLVM's 512-bit half of AVX-512) goes with ``avx512f``
ISA_PREFIXES = ("avx", "fma", "f16c", "sse", "ssse3", "amx", "vaes", "vpclmulqdq", "gfni", "sha", "bmi")


def cpu_flags() -> frozenset[str]:
    """This CPU's instruction-set flags as /proc/cpuinfo lists them (empty where it cannot be read)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("flags"):
                    return frozenset(line.split(":", 1)[1].split())
    except OSError:
        pass
    return frozenset()


# LLVM feature -> the /proc/cpuinfo flag of another name
CPUINFO_NAMES = {"sse3": "pni", "bmi": "bmi1", "sha": "sha_ni"}


def _norm(name: str) -> str:
    name = CPUINFO_NAMES.get(name, name)
    return name.replace("_", "").replace(".", "").replace("-", "").lower()


def unsupported_features(features: Collection[str], flags: Collection[str]) -> list[str]:
    """The instruction-set features among LLVM ``features`` that a CPU with /proc/cpuinfo ``flags`` lacks
    (names compared without '_' and '.': LLVM's ``avx512vbmi2``/``sse4.1`` are ``avx512_vbmi2``/``sse4_1``
    there), sorted; empty when ``flags`` is empty (nothing known)."""
    if not flags:
        return []
    have = {_norm(f) for f in flags}
    out = {f for f in features if f.startswith(ISA_PREFIXES) and _norm(f) not in have}
    if "avx512f" in out and "evex512" in features:
        out.add("evex512")
    return sorted(out)


def host_missing_features(cpu: str | None = None, flags: Collection[str] | None = None) -> list[str]:
    """The instruction sets LLVM's name for this CPU implies that this machine does not offer: a VM whose
    hypervisor hides AVX-512 from a Zen 4 still reads as ``znver4`` to LLVM (stop 58: every measurement of a
    ResNet-18 run died with SIGILL there). Empty on a machine that offers what its name says."""
    return unsupported_features(llvm_cpu_features(cpu or llvm_cpu_name()), cpu_flags() if flags is None else flags)


def default_cpu_target(num_cores: int | None = None) -> dict:
    """The local CPU as a TVM target dict: LLVM's name for the host CPU (so AVX-512 is used where present)
    and, where the machine lacks instruction sets that name implies (``host_missing_features``), an
    ``mattr`` that turns them off."""
    from tvm.target import codegen

    cpu = str(codegen.llvm_get_system_cpu())
    t: dict[str, Any] = {"kind": "llvm", "mcpu": cpu, "num-cores": int(num_cores or os.cpu_count() or 1)}
    missing = host_missing_features(cpu)
    if missing:
        t["mattr"] = [f"-{f}" for f in missing]
    return t


def target_missing_features(target: dict[str, Any], flags: Collection[str] | None = None) -> list[str]:
    """The instruction sets an LLVM CPU target's code may use that this CPU (or one with ``flags``) lacks:
    its code would die with an illegal instruction here."""
    import tvm
    from tvm.target import codegen

    if target.get("kind") != "llvm":
        return []
    try:
        feats = [str(k) for k in codegen.llvm_get_cpu_features(tvm.target.Target(target))]
    except Exception:  # an LLVM without the query
        return []
    return unsupported_features(feats, cpu_flags() if flags is None else flags)


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
    LLVM's CPU name ("AMD EPYC (znver5)"), with the instruction sets that name implies and this machine
    lacks ("AMD EPYC (znver4 -avx512f ...)": code tuned there is not what a real Zen 4 runs)."""
    return f"{cpu_model()} ({llvm_cpu_label()})"


def llvm_cpu_label() -> str:
    """LLVM's name for this CPU, followed by the instruction sets that name implies and this machine lacks
    (``host_missing_features``; AVX-512's dozen as one word): ``znver5``, ``znver4 -avx512 -gfni``."""
    short = sorted({"avx512" if f.startswith("avx512") else f for f in host_missing_features()})
    return " ".join([llvm_cpu_name(), *(f"-{f}" for f in short)])


def llvm_cpu_key(label: str | None = None) -> str:
    """A CPU label (default: this machine's, :func:`llvm_cpu_label`) as a file name carries it: ``znver5``,
    ``znver4-no-avx512-no-gfni`` (the corpus ``corpus build`` writes on a VM that hides AVX-512 from a Zen 4)."""
    return (llvm_cpu_label() if label is None else label).replace(" -", "-no-")


def cpu_label_features(label: str) -> frozenset[str]:
    """The LLVM features of a CPU as :func:`llvm_cpu_label` (``znver4 -avx512 -gfni``) or :func:`llvm_cpu_key`
    (``znver4-no-avx512-no-gfni``) writes it: its LLVM name's features less those it lacks (``avx512``: every
    ``avx512*`` one). Empty for a name LLVM does not know."""
    base, *lacks = llvm_cpu_key(label.strip()).split("-no-")
    feats = llvm_cpu_features(base)
    gone = {f for f in feats for x in lacks if f == x or (x == "avx512" and f.startswith("avx512"))}
    return feats - gone
