"""Spec tables of hardware families, from public facts only (what a datasheet or the OS says), as the
input of Glimpse's Blueprint (``hardware/blueprint.py``).

- **GPUs**: fourteen NVIDIA GPUs from Pascal to Hopper. Figures are the vendors' published
  specifications (whitepapers and product pages: SM count, FP32 cores, boost clock, L2, memory
  bandwidth, peak FP32) and the CUDA programming guide's per-compute-capability limits (shared memory
  and registers per SM and per block, threads per SM). Written down from those sources by hand; the
  per-block shared memory is the opt-in maximum.
- **CPU targets of this machine**: LLVM code for an instruction-set level and a core count is different
  hardware to the compiler. The ISA level fixes vector width, vector registers and FMA pipes (Intel's
  and AMD's optimisation manuals); caches and clock are this machine's (sysfs, /proc/cpuinfo).
- **VTA-like designs**: the accelerator model's knobs (GEMM shape, SRAM sizes, bus width, clock) and
  what follows from them (MACs per cycle, bytes on chip, area).
"""

from __future__ import annotations

import itertools
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tensortune.core.caches import cache_bytes
from tensortune.core.targets import cpu_flags


@dataclass(frozen=True)
class HardwareSpec:
    name: str
    family: str  # "gpu", "cpu", "vta"
    features: dict[str, float]  # public facts, in the family's units
    target: dict[str, Any]  # the tensortune target that measures it (where one exists here)


# name: arch, SMs, FP32 cores, boost MHz, smem/SM KiB, smem/block KiB, regs/SM (K), regs/block (K), threads/SM,
#       L2 KiB, memory GB/s, peak FP32 TFLOP/s
GPUS: dict[str, tuple] = {
    "GTX 1080 Ti": ("pascal", 28, 3584, 1582, 96, 48, 64, 64, 2048, 2816, 484, 11.3),
    "Titan Xp": ("pascal", 30, 3840, 1582, 96, 48, 64, 64, 2048, 3072, 548, 12.1),
    "Tesla P100 SXM2": ("pascal", 56, 3584, 1480, 64, 48, 64, 64, 2048, 4096, 732, 10.6),
    "Titan V": ("volta", 80, 5120, 1455, 96, 96, 64, 64, 2048, 4608, 653, 14.9),
    "Tesla V100 SXM2": ("volta", 80, 5120, 1530, 96, 96, 64, 64, 2048, 6144, 900, 15.7),
    "RTX 2080 Ti": ("turing", 68, 4352, 1545, 64, 64, 64, 64, 1024, 5632, 616, 13.4),
    "Tesla T4": ("turing", 40, 2560, 1590, 64, 64, 64, 64, 1024, 4096, 320, 8.1),
    "A100 SXM4 40GB": ("ampere", 108, 6912, 1410, 164, 163, 64, 64, 2048, 40960, 1555, 19.5),
    "RTX 3090": ("ampere", 82, 10496, 1695, 100, 99, 64, 64, 1536, 6144, 936, 35.6),
    "A10": ("ampere", 72, 9216, 1695, 100, 99, 64, 64, 1536, 6144, 600, 31.2),
    "RTX 4090": ("ada", 128, 16384, 2520, 100, 99, 64, 64, 1536, 73728, 1008, 82.6),
    "L4": ("ada", 58, 7424, 2040, 100, 99, 64, 64, 1536, 49152, 300, 30.3),
    "H100 PCIe": ("hopper", 114, 14592, 1755, 228, 227, 64, 64, 2048, 51200, 2000, 51.2),
    "H100 SXM5": ("hopper", 132, 16896, 1980, 228, 227, 64, 64, 2048, 51200, 3350, 66.9),
}
GPU_COLUMNS = ("sms", "fp32_cores", "boost_mhz", "smem_per_sm_kib", "smem_per_block_kib", "regs_per_sm_k",
               "regs_per_block_k", "threads_per_sm", "l2_kib", "mem_gbps", "peak_tflops")

# LLVM CPU name: vector bits, vector registers, FMA pipes per core (0: no FMA instructions)
CPU_TARGETS: dict[str, tuple[int, int, int]] = {
    "x86-64-v2": (128, 16, 0),  # SSE4.2, POPCNT
    "haswell": (256, 16, 2),  # AVX2 + FMA
    "skylake-avx512": (512, 32, 2),  # AVX-512
    "znver4": (512, 32, 2),  # AVX-512 on 256-bit datapaths
}


# the /proc/cpuinfo flags a CPU needs to run each target's code (LLVM emits these instructions freely)
CPU_TARGET_FLAGS: dict[str, frozenset[str]] = {
    "x86-64-v2": frozenset({"sse4_2", "popcnt", "ssse3"}),
    "haswell": frozenset({"avx2", "fma", "bmi2", "movbe"}),
    "skylake-avx512": frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"}),
    "znver4": frozenset({"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512_bf16", "avx512vnni"}),
}


def runnable_targets(flags: frozenset[str] | None = None) -> list[str]:
    """The CPU targets whose code this CPU (or one with ``flags``) can run: only these can be measured
    here (an AVX-512 target's code dies with an illegal instruction on an AVX2 CPU)."""
    have = cpu_flags() if flags is None else flags
    return [name for name in CPU_TARGETS if CPU_TARGET_FLAGS[name] <= have]


def gpu_specs() -> list[HardwareSpec]:
    out = []
    for name, row in GPUS.items():
        feats = {c: float(v) for c, v in zip(GPU_COLUMNS, row[1:], strict=True)}
        out.append(HardwareSpec(name, "gpu", feats, {"kind": "cuda", "arch": row[0]}))
    return out


def _cache_kib(level: int, kind: str = "") -> float:
    n = cache_bytes(level, kind)
    return float("nan") if n is None else n / 1024


def _clock_mhz() -> float:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("cpu MHz"):
                return float(line.split(":")[1])
    except OSError:
        pass
    return float("nan")


def cpu_specs(cores: tuple[int, ...] = (1, 2), runnable_only: bool = False,
              flags: frozenset[str] | None = None) -> list[HardwareSpec]:
    """Every (ISA level, core count) target on this machine: its own caches and clock, the ISA's vectors.
    ``runnable_only``: only the targets this CPU (or one with ``flags``) can run, i.e. the ones that can be
    measured here (a Blueprint may still be fitted on all of them: their specs are datasheet facts)."""
    l1, l2, l3, mhz = _cache_kib(1, "Data"), _cache_kib(2), _cache_kib(3), _clock_mhz()
    ok = set(runnable_targets(flags)) if runnable_only else set(CPU_TARGETS)
    out = []
    for (name, (bits, regs, fma)), n in itertools.product(CPU_TARGETS.items(), cores):
        if n > (os.cpu_count() or 1) or name not in ok:
            continue
        lanes = bits // 32
        feats = {"vector_bits": bits, "vector_registers": regs, "fma_pipes": fma, "cores": n, "clock_mhz": mhz,
                 "l1d_kib": l1, "l2_kib": l2, "l3_kib": l3,
                 "peak_gflops": n * mhz / 1e3 * lanes * max(fma, 1) * (2 if fma else 1)}
        out.append(HardwareSpec(f"{name} x{n}", "cpu", feats, {"kind": "llvm", "mcpu": name, "num-cores": n}))
    return out


def vta_specs(options: dict[str, tuple[int, ...]], freq_mhz: float = 100.0) -> list[HardwareSpec]:
    """Every design of the option grid (the accelerator model's knobs) with what follows from it."""
    from tensortune.accel.vta import HW_KNOBS, design_area, design_memory

    keys = [k for k in HW_KNOBS if k in options]
    out = []
    for combo in itertools.product(*(options[k] for k in keys)):
        hw = dict(zip(keys, combo, strict=True))
        macs = hw["BATCH"] * hw["BLOCK_IN"] * hw["BLOCK_OUT"]
        feats = {**{k: float(v) for k, v in hw.items()}, "macs_per_cycle": float(macs), "clock_mhz": freq_mhz,
                 "sram_kib": float(design_memory(hw)) / 1024, "area_mm2": float(design_area(hw)),
                 "bus_bytes_per_cycle": hw["BUS_WIDTH"] / 8, "peak_gops": 2 * macs * freq_mhz / 1e3}
        name = "vta-" + "-".join(str(v) for v in combo)
        out.append(HardwareSpec(name, "vta", feats, {"kind": "vta-sim", "hw": hw}))
    return out


def feature_matrix(specs: list[HardwareSpec]) -> tuple[list[str], np.ndarray]:
    cols = list(specs[0].features)
    if any(list(s.features) != cols for s in specs):
        raise ValueError("specs of one Blueprint must share their features (one family at a time)")
    return cols, np.array([[s.features[c] for c in cols] for s in specs], dtype=np.float64)
