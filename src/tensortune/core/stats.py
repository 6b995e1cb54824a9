"""The one median and the one "measurements to reach a target" used by every report and benchmark."""

from __future__ import annotations

import math
import statistics
from collections.abc import Iterable, Sequence


def median(xs: Iterable[float | None]) -> float:
    """Median of the finite values (None, NaN and infinities skipped); NaN if there are none."""
    vals = [float(x) for x in xs if x is not None and math.isfinite(x)]
    return statistics.median(vals) if vals else float("nan")


def trials_to_reach(curve: Sequence[float], target: float, budget: int | None = None, rel_tol: float = 0.0) -> int | None:
    """1-based index of the first value of ``curve`` (a best-so-far or per-measurement series) at or
    above ``target`` (less ``rel_tol`` of it, for floating-point equality), within the first
    ``budget`` values; None if it never gets there."""
    limit = target * (1.0 - rel_tol)
    for i, v in enumerate(curve[:budget] if budget else curve):
        if v >= limit and v > 0:
            return i + 1
    return None
