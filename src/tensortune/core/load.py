"""Is another process using this machine's cores? (Linux: ``/proc/stat``.)

TVM's runtime splits every parallel loop evenly across its pool, one share per core, and the kernel
ends when the slowest share does. A core that is busy with anything else therefore slows every
parallel kernel, not by the share of the core it takes but by the time its scheduler keeps the pool's
worker waiting: on a 2-core Zen 5 VM, one busy-looping shell process on core 1 made a tuned ResNet-18
take 100 ms instead of 7.3 ms (13.7x), while ONNX Runtime, whose pool balances work dynamically, went
from 7.8 to 27.8 ms (3.6x). A timing taken then says more about the other process than about the
model; the model commands check the cores before they time anything and say so.
"""

from __future__ import annotations

import time

BUSY = 0.2  # a core busier than this (share of its time) while we are idle is not free


def _core_times() -> dict[int, tuple[int, int]] | None:
    """Per core (busy, total) jiffies since boot; None where ``/proc/stat`` does not exist."""
    try:
        with open("/proc/stat") as f:
            lines = [ln.split() for ln in f if ln.startswith("cpu") and ln[3:4].isdigit()]
    except OSError:
        return None
    out = {}
    for parts in lines:
        vals = [int(v) for v in parts[1:]]
        idle = vals[3] + (vals[4] if len(vals) > 4 else 0)  # idle + iowait
        out[int(parts[0][3:])] = (sum(vals[:8]) - idle, sum(vals[:8]))
    return out


def busy_cores(seconds: float = 0.5, cores: set[int] | None = None) -> dict[int, float]:
    """The cores (of ``cores``, default all) that were busier than ``BUSY`` over ``seconds`` while the
    calling process slept, with their busy share; empty where this cannot be measured."""
    before = _core_times()
    if before is None:
        return {}
    time.sleep(seconds)
    after = _core_times() or {}
    busy = {}
    for c, (b0, t0) in before.items():
        if c not in after or (cores is not None and c not in cores):
            continue
        b1, t1 = after[c]
        share = (b1 - b0) / (t1 - t0) if t1 > t0 else 0.0
        if share > BUSY:
            busy[c] = round(share, 2)
    return busy


def describe_busy(busy: dict[int, float]) -> str:
    """One line for the user about busy cores (empty when none)."""
    if not busy:
        return ""
    cores = ", ".join(f"core {c} {v:.0%}" for c, v in sorted(busy.items()))
    return (f"WARNING: other work is using this machine ({cores} busy while tensortune waited): TVM's parallel "
            "kernels wait for their slowest core, so the timings below may be many times too slow; stop the "
            "other work and time again (`tensortune profile`)")
