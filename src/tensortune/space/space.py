"""The search space: knobs, mixed-radix indexing, sampling, neighbours, encoding and constraints."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.space.knobs import Knob


@dataclass(frozen=True, order=True)
class Config:
    """One point of a space: the option index of every knob, in the space's knob order."""

    indices: tuple[int, ...]


@dataclass(frozen=True)
class Constraint:
    """A named predicate over knob values; a config violating it is rejected before it is built.

    ``vectorized`` (optional) evaluates the same predicate on arrays of knob values (name -> array),
    which makes validity checks of large candidate batches fast. ``budget`` marks a resource budget
    (area, memory) rather than a structural rule: search agents may walk through such configs, paying
    the space's ``penalty``, but they are never measured. ``knobs`` (optional) names the knobs the
    predicate reads, so a strategy can split a space into parts (hierarchical co-design); empty means
    unknown.
    """

    name: str
    predicate: Callable[[dict[str, Any]], bool]
    vectorized: Callable[[dict[str, np.ndarray]], np.ndarray] | None = None
    budget: bool = False
    knobs: tuple[str, ...] = ()


class SearchSpace:
    """An ordered set of knobs plus validity constraints.

    Index <-> config uses mixed radix with the first knob as the least significant digit (AutoTVM's
    convention). Sizes can exceed 2**63, so indices are Python ints.
    """

    def __init__(self, knobs: Sequence[Knob], constraints: Sequence[Constraint] = (),
                 penalty: Callable[[dict[str, np.ndarray]], np.ndarray] | None = None) -> None:
        names = [k.name for k in knobs]
        if len(set(names)) != len(names):
            raise ValueError(f"duplicate knob names in {names}")
        if not knobs:
            raise ValueError("a search space needs at least one knob")
        self.knobs: tuple[Knob, ...] = tuple(knobs)
        self.constraints: tuple[Constraint, ...] = tuple(constraints)
        self.radices = np.array([len(k) for k in knobs], dtype=np.int64)
        self._name_to_pos = {k.name: i for i, k in enumerate(knobs)}
        # per-knob feature lookup tables: option index -> feature row
        self._tables = [np.array([k.feature(i) for i in range(len(k))], dtype=np.float64) for k in knobs]
        self._valid_cache: dict[tuple[int, ...], bool] = {}
        self.penalty_fn = penalty
        self._numeric = all(isinstance(v, int | float) and not isinstance(v, bool) for k in knobs for v in k.options)
        self._value_tables = ([np.array(k.options, dtype=np.float64) for k in knobs] if self._numeric else [])

    # ------------------------------------------------------------------ basic facts
    @property
    def size(self) -> int:
        out = 1
        for r in self.radices:
            out *= int(r)
        return out

    @property
    def names(self) -> list[str]:
        return [k.name for k in self.knobs]

    def knob(self, name: str) -> Knob:
        return self.knobs[self._name_to_pos[name]]

    def groups(self) -> dict[str, list[str]]:
        """Knob names by group label (later: one RL agent per group)."""
        out: dict[str, list[str]] = {}
        for k in self.knobs:
            out.setdefault(k.group, []).append(k.name)
        return out

    # ------------------------------------------------------------------ index <-> config
    def index_of(self, cfg: Config) -> int:
        idx, mul = 0, 1
        for i, r in zip(cfg.indices, self.radices, strict=True):
            idx += int(i) * mul
            mul *= int(r)
        return idx

    def flat_indices(self, idx: np.ndarray) -> np.ndarray:
        """:meth:`index_of` of many configs at once, given as option-index rows (n, knobs)."""
        mul = np.concatenate([[1], np.cumprod(self.radices)[:-1]]).astype(np.int64)
        return np.asarray(idx, dtype=np.int64).reshape(-1, len(self.radices)) @ mul

    def config(self, index: int) -> Config:
        if not 0 <= index < self.size:
            raise IndexError(f"config index {index} outside space of size {self.size}")
        out = []
        for r in self.radices:
            index, d = divmod(index, int(r))
            out.append(d)
        return Config(tuple(out))

    def values(self, cfg: Config) -> dict[str, Any]:
        """Knob name -> option value."""
        return {k.name: k.value(i) for k, i in zip(self.knobs, cfg.indices, strict=True)}

    def to_json(self, cfg: Config) -> dict[str, Any]:
        return {k.name: k.to_json(i) for k, i in zip(self.knobs, cfg.indices, strict=True)}

    def from_json(self, values: dict[str, Any]) -> Config:
        """Inverse of :meth:`to_json`; raises ValueError for unknown knobs or options."""
        if set(values) != set(self.names):
            raise ValueError(f"config knobs {sorted(values)} do not match space knobs {sorted(self.names)}")
        return Config(tuple(k.index(values[k.name]) for k in self.knobs))

    def restrict(self, keep: dict[str, Callable[[Any], bool]]) -> SearchSpace:
        """The subspace whose knobs keep only the options ``keep[name]`` accepts (knobs not named keep
        all options). Knob names, kinds, option order and constraints stay, so a config of the subspace
        is a config of this space with the same values (what a reduced ground-truth space needs)."""
        unknown = set(keep) - set(self.names)
        if unknown:
            raise ValueError(f"restrict: unknown knobs {sorted(unknown)}; space has {self.names}")
        knobs = []
        for k in self.knobs:
            if k.name not in keep:
                knobs.append(k)
                continue
            opts = tuple(o for o in k.options if keep[k.name](o))
            if not opts:
                raise ValueError(f"restrict: no option of knob {k.name!r} is kept")
            knobs.append(dataclasses.replace(k, options=opts))
        return SearchSpace(knobs, self.constraints, self.penalty_fn)

    # ------------------------------------------------------------------ validity
    def violated(self, cfg: Config) -> list[str]:
        vals = self.values(cfg)
        return [c.name for c in self.constraints if not c.predicate(vals)]

    def is_valid(self, cfg: Config) -> bool:
        if not self.constraints:
            return True
        hit = self._valid_cache.get(cfg.indices)
        if hit is None:
            hit = not self.violated(cfg)
            if len(self._valid_cache) < 1_000_000:
                self._valid_cache[cfg.indices] = hit
        return hit

    def value_arrays(self, idx: np.ndarray) -> dict[str, np.ndarray]:
        """Knob name -> array of option values for an (n, n_knobs) index matrix (numeric knobs only)."""
        if not self._numeric:
            raise ValueError("value_arrays needs a space whose knob options are all numbers")
        idx = np.asarray(idx, dtype=np.int64)
        return {k.name: t[idx[:, j]] for j, (k, t) in enumerate(zip(self.knobs, self._value_tables, strict=True))}

    def valid_mask(self, idx: np.ndarray, budgets: bool = True) -> np.ndarray:
        """Validity of each row of an (n, n_knobs) index matrix; ``budgets=False`` ignores budget
        constraints (what a search agent may walk through)."""
        cons = [c for c in self.constraints if budgets or not c.budget]
        if not cons:
            return np.ones(len(idx), dtype=bool)
        if self._numeric and all(c.vectorized is not None for c in cons):
            vals = self.value_arrays(idx)
            out = np.ones(len(idx), dtype=bool)
            for c in cons:
                out &= np.asarray(c.vectorized(vals), dtype=bool)  # type: ignore[misc]
            return out
        if budgets:
            return np.array([self.is_valid(Config(tuple(int(v) for v in row))) for row in idx], dtype=bool)
        return np.array([all(c.predicate(self.values(Config(tuple(int(v) for v in row)))) for c in cons)
                         for row in idx], dtype=bool)

    def penalty(self, idx: np.ndarray) -> np.ndarray:
        """Non-negative budget penalty of each row (0 within budget, or when the space has none)."""
        if self.penalty_fn is None:
            return np.zeros(len(idx))
        return np.asarray(self.penalty_fn(self.value_arrays(idx)), dtype=np.float64)

    # ------------------------------------------------------------------ sampling and moves
    def sample(self, n: int, rng: np.random.Generator, exclude: Iterable[Config] = (), max_tries: int = 100) -> list[Config]:
        """Up to ``n`` distinct valid configs drawn uniformly, skipping ``exclude``."""
        seen = set(exclude)
        out: list[Config] = []
        if self._numeric and self.constraints and all(c.vectorized is not None for c in self.constraints):
            # vectorised rejection sampling: spaces where few random configs pass (e.g. a whole model's
            # co-design, where every layer's tiles must divide the shared design's blocks) stay usable
            for _ in range(max_tries):
                rows = self.random_indices(max(4096, 64 * n), rng)
                for row in rows[self.valid_mask(rows)]:
                    c = Config(tuple(int(v) for v in row))
                    if c not in seen:
                        seen.add(c)
                        out.append(c)
                        if len(out) == n:
                            return out
            return out
        tries = 0
        while len(out) < n and tries < max_tries:
            tries += 1
            need = (n - len(out)) * 2 + 8
            rows = self.random_indices(need, rng)
            for row in rows:
                c = Config(tuple(int(v) for v in row))
                if c in seen or not self.is_valid(c):
                    continue
                seen.add(c)
                out.append(c)
                if len(out) == n:
                    break
        return out

    def random_indices(self, n: int, rng: np.random.Generator) -> np.ndarray:
        """An (n, n_knobs) matrix of uniformly random option indices (validity not checked)."""
        return (rng.random((n, len(self.knobs))) * self.radices).astype(np.int64)

    def neighbors(self, cfg: Config) -> list[Config]:
        """All valid configs that differ from ``cfg`` by one step of one knob."""
        out = []
        for pos, r in enumerate(self.radices):
            for d in (-1, 1):
                v = cfg.indices[pos] + d
                if 0 <= v < r:
                    c = Config(cfg.indices[:pos] + (v,) + cfg.indices[pos + 1:])
                    if self.is_valid(c):
                        out.append(c)
        return out

    def random_step(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Vectorised move: for each row, one random knob one step up or down (clamped, never a no-op
        unless the knob has a single option)."""
        n = len(idx)
        out = idx.copy()
        pos = rng.integers(0, len(self.radices), size=n)
        step = rng.choice(np.array([-1, 1]), size=n)
        cur = out[np.arange(n), pos]
        nxt = cur + step
        r = self.radices[pos]
        nxt = np.where(nxt < 0, np.minimum(1, r - 1), nxt)
        nxt = np.where(nxt >= r, np.maximum(r - 2, 0), nxt)
        out[np.arange(n), pos] = nxt
        return out

    def random_mutation(self, idx: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """Vectorised AutoTVM ``random_walk``: for each row, one random knob (of those with more than one
        option) set to a uniformly random other option."""
        n = len(idx)
        out = idx.copy()
        movable = np.flatnonzero(self.radices > 1)
        if n == 0 or not len(movable):
            return out
        pos = movable[rng.integers(0, len(movable), size=n)]
        r = self.radices[pos]
        cur = out[np.arange(n), pos]
        nxt = (cur + rng.integers(1, r)) % r  # uniform over the r - 1 other options
        out[np.arange(n), pos] = nxt
        return out

    # ------------------------------------------------------------------ encoding
    @property
    def n_features(self) -> int:
        return int(sum(t.shape[1] for t in self._tables))

    def encode_indices(self, idx: np.ndarray) -> np.ndarray:
        """Numeric features of an (n, n_knobs) index matrix: per knob, its option's feature row."""
        idx = np.asarray(idx, dtype=np.int64)
        if idx.ndim == 1:
            idx = idx[None, :]
        return np.concatenate([t[idx[:, j]] for j, t in enumerate(self._tables)], axis=1)

    def indices(self, cfgs: Sequence[Config]) -> np.ndarray:
        """The configs' option indices as an (n, n_knobs) matrix (what ``encode_indices`` and the
        transferable encodings read); (0, n_knobs) for none."""
        return np.array([c.indices for c in cfgs], dtype=np.int64).reshape(len(cfgs), len(self.knobs))

    def encode(self, cfgs: Sequence[Config]) -> np.ndarray:
        if not cfgs:
            return np.zeros((0, self.n_features))
        return self.encode_indices(self.indices(cfgs))

    def fingerprint(self) -> str:
        """A hash of what config indices mean: every knob's name and options, in order, and the names of
        the constraints. Stored with a run, so a changed space is never decoded with old indices."""
        import hashlib

        text = repr([(k.name, [repr(o) for o in k.options]) for k in self.knobs] + [c.name for c in self.constraints])
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def describe(self) -> str:
        parts = [f"{k.name}[{len(k)}]" for k in self.knobs]
        return f"SearchSpace(size={self.size}, knobs=" + ", ".join(parts) + ")"
