"""Knob kinds. A knob is a named, ordered list of options; a configuration picks one index per knob.

Options are ordered so that "one step up or down" (the move of simulated annealing and of the RL
agents) changes the program a little: split options are sorted lexicographically by their factors,
option and integer knobs keep the order they are given in.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


def _divisors(n: int) -> list[int]:
    small, large = [], []
    for d in range(1, math.isqrt(n) + 1):
        if n % d == 0:
            small.append(d)
            if d != n // d:
                large.append(n // d)
    return small + large[::-1]


def _is_pow2(n: int) -> bool:
    return n > 0 and (n & (n - 1)) == 0


def enumerate_splits(extent: int, n_parts: int, power2: bool = False, max_factor: int | None = None) -> list[tuple[int, ...]]:
    """All ordered factorisations of ``extent`` into ``n_parts`` factors (AutoTVM ``define_split``).

    The first (outermost) factor absorbs the rest of the extent; ``power2`` restricts the inner
    factors to powers of two and ``max_factor`` bounds them.
    """
    if extent < 1 or n_parts < 1:
        raise ValueError(f"cannot split extent {extent} into {n_parts} parts")
    out: list[tuple[int, ...]] = []

    def rec(rest: int, parts_left: int, inner: tuple[int, ...]) -> None:
        if parts_left == 0:
            out.append((rest, *inner))
            return
        for d in _divisors(rest):
            if power2 and not _is_pow2(d):
                continue
            if max_factor is not None and d > max_factor:
                continue
            rec(rest // d, parts_left - 1, (d, *inner))

    rec(extent, n_parts - 1, ())
    out.sort(key=lambda t: t[::-1])
    return out


@dataclass(frozen=True)
class Knob:
    """A named knob with an ordered tuple of options."""

    name: str
    options: tuple[Any, ...]
    group: str = "default"
    hardware: bool = False
    kind: str = field(default="option")

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a knob needs a name")
        if len(self.options) == 0:
            raise ValueError(f"knob {self.name!r} has no options")

    def __len__(self) -> int:
        return len(self.options)

    def value(self, index: int) -> Any:
        return self.options[index]

    def index(self, value: Any) -> int:
        """Option index of ``value``; raises ValueError if it is not an option."""
        key = tuple(value) if isinstance(value, list) else value
        try:
            return self.options.index(key)
        except ValueError:
            raise ValueError(f"{key!r} is not an option of knob {self.name!r}") from None

    @property
    def n_features(self) -> int:
        return 1

    def feature(self, index: int) -> tuple[float, ...]:
        """Numeric features of one option, for ML cost models."""
        v = self.options[index]
        if isinstance(v, bool | int | float):
            return (float(v),)
        return (float(index),)

    def to_json(self, index: int) -> Any:
        v = self.options[index]
        return list(v) if isinstance(v, tuple) else v


def SplitKnob(name: str, extent: int, n_parts: int, *, power2: bool = False, max_factor: int | None = None,
              group: str = "tile", hardware: bool = False) -> Knob:
    """A ``define_split`` knob: ``extent`` split into ``n_parts`` factors whose product is ``extent``."""
    opts = enumerate_splits(extent, n_parts, power2, max_factor)
    if not opts:
        raise ValueError(f"split knob {name!r}: no factorisation of {extent} into {n_parts} parts")
    return _SplitKnob(name=name, options=tuple(opts), group=group, hardware=hardware, kind="split")


@dataclass(frozen=True)
class _SplitKnob(Knob):
    @property
    def n_features(self) -> int:
        return len(self.options[0])

    def feature(self, index: int) -> tuple[float, ...]:
        return tuple(float(f) for f in self.options[index])


def OptionKnob(name: str, values: list[Any] | tuple[Any, ...], *, group: str = "option", hardware: bool = False) -> Knob:
    """A categorical knob (e.g. ``auto_unroll_max_step``, ``unroll_explicit``)."""
    return Knob(name=name, options=tuple(values), group=group, hardware=hardware, kind="option")


def IntKnob(name: str, low: int, high: int, step: int = 1, *, group: str = "int", hardware: bool = False) -> Knob:
    """An integer knob taking low, low+step, ... <= high."""
    if high < low or step < 1:
        raise ValueError(f"integer knob {name!r}: empty range {low}..{high} step {step}")
    return Knob(name=name, options=tuple(range(low, high + 1, step)), group=group, hardware=hardware, kind="int")
