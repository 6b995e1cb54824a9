"""This machine's CPU caches (sysfs), and whether evicting a kernel's arguments from them before each timed run
(the cold protocol, ``measure.tvm_measurer.TimingPolicy``) measures anything.

TVM's ``cache_flush_cpu_non_first_arg`` evicts every argument but the input with one ``clflush`` per 64-byte
line. When the arguments are larger than the last-level cache, a run cannot keep them cached for the next:
the kernel streams them from memory whether they were flushed or not, and the flush is mostly cost. On the
2-vCPU Xeon VM (300 MiB L3) it was most of a VGG-16 tuning run: its fc6 dense layer has 411 MB of weights, and
each of its 20 cold runs per measurement was preceded by a flush of about a second (``perf``: 88% of the
runner's time in TVM's ``clflush`` loop), 25 s of wall time per measurement against 0.4-1.2 s of timed runs;
144 of the 1,000 measurements of a ``tune --model vgg16 --trials 1000`` were fc6's (stop 67). Unflushed, fc6's
three best configs read 0.5-10% faster (15.28 / 14.42 / 15.95 ms against 15.36 / 16.11 / 16.74, inside one
config's spread between rounds), with a run step of 3.1 s instead of 22.9 (``results/cold-flush-s67``).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

SYSFS_CACHES = Path("/sys/devices/system/cpu/cpu0/cache")


def cache_bytes(level: int, kind: str = "", base: Path = SYSFS_CACHES) -> int | None:
    """The size of CPU 0's cache of ``level`` (``kind``: "Data", "Instruction", "Unified" or any), None if
    sysfs does not say."""
    for d in sorted(base.glob("index*")):
        try:
            if int((d / "level").read_text()) != level or (kind and (d / "type").read_text().strip() != kind):
                continue
            txt = (d / "size").read_text().strip()
            scale = {"K": 1024, "M": 1024**2, "G": 1024**3}.get(txt[-1:].upper(), 1)
            return int(float(txt.rstrip("KMGkmg")) * scale)
        except (OSError, ValueError):
            continue
    return None


def last_level_cache_bytes(base: Path = SYSFS_CACHES) -> int | None:
    """The size of the highest cache level sysfs lists (the L3 on today's x86 CPUs), None if it lists none."""
    levels = []
    for d in base.glob("index*"):
        try:
            levels.append(int((d / "level").read_text()))
        except (OSError, ValueError):
            continue
    return cache_bytes(max(levels), base=base) if levels else None


def flush_pays(nbytes: int, llc_bytes: int | None) -> bool:
    """Whether evicting ``nbytes`` of arguments before each timed run changes what the run measures: not when
    they exceed the last-level cache (``llc_bytes``; None: unknown, so flush)."""
    return llc_bytes is None or nbytes <= llc_bytes


def tensor_nbytes(t: Any) -> int:
    """Bytes of a TVM or NumPy tensor (from its shape and dtype)."""
    return int(np.prod([int(d) for d in t.shape], dtype=np.int64)) * np.dtype(str(t.dtype)).itemsize


def cold_preproc(args: list[Any], llc_bytes: int | None) -> str:
    """TVM time evaluator's ``f_preproc`` for a cold run of a kernel on ``args`` (input first): the flush of
    every argument but the input, or none (``""``) where it would not change the measurement (``flush_pays``)."""
    flushed = sum(tensor_nbytes(a) for a in args[1:])
    return "cache_flush_cpu_non_first_arg" if flush_pays(flushed, llc_bytes) else ""
