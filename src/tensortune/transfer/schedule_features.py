"""MetaSchedule's ``PerStoreFeature`` of each config's scheduled program, as transfer features.

:class:`~tensortune.transfer.features.TransferFeatures` describes a config by its knobs relative to the
shape. This describes it by the program the config produces: the template is instantiated, and
MetaSchedule's feature extractor (the one its XGBoost cost model and TenSet/TLP-style pretraining use)
gives 164 numbers per buffer store (arithmetic per type, bytes and cache lines touched per buffer
and loop level, reuse distances, vectorisation, unrolling, parallelism, allocation), reduced to their
sum, maximum and the store count (``features.hidden.HiddenFeatures``, ML2Tuner's model A), after the
shape columns. Two tasks share these columns whatever their templates' knobs.

Extraction costs about 10 ms a config (instantiate plus extract), which a cost model that scores
thousands of candidates per round cannot pay on a live space; features are therefore computed once
per config and kept in a cache file per task (``cache_dir``), which is what a ground-truth table
(a few thousand configs, every one scored many times) needs. ``tensortune bench transfer --features
knobs,schedule`` compares the two encodings on held-out layers.
"""

from __future__ import annotations

import hashlib
import os
from functools import cached_property
from typing import Any

import numpy as np

from tensortune.core.values import Task
from tensortune.features.hidden import HiddenFeatures
from tensortune.transfer.features import shape_features

WIDTH = 2 * 164 + 1  # PerStoreFeature's 164 columns per store: sum, max; and the store count


class ScheduleFeatures:
    """``PerStoreFeature`` of a task's configs after its shape columns, cached per task in a file."""

    def __init__(self, task: Task, cache_dir: str | None = None) -> None:
        self.task = task
        self.space = task.space
        self.cache_dir = cache_dir
        self._hidden = HiddenFeatures(task)
        self._rows: dict[int, np.ndarray] = {}
        self._dirty = False
        if cache_dir and os.path.exists(self._path):
            with np.load(self._path) as z:
                self._rows = {int(i): r for i, r in zip(z["index"], z["x"], strict=True)}

    @property
    def _path(self) -> str:
        assert self.cache_dir is not None
        digest = hashlib.sha1(f"{self.task.key}|{self.task.template}".encode()).hexdigest()[:16]
        return os.path.join(self.cache_dir, f"{digest}.npz")

    @cached_property
    def shape(self) -> np.ndarray:
        return shape_features(self.task.workload)

    @property
    def signature(self) -> tuple:
        return ("per-store-feature", WIDTH)  # the same columns for every template

    @property
    def width(self) -> int:
        return len(self.shape) + WIDTH

    def save(self) -> None:
        """Write the computed rows to the cache file (if a cache directory was given)."""
        if not self.cache_dir or not self._dirty:
            return
        os.makedirs(self.cache_dir, exist_ok=True)
        idx = np.array(sorted(self._rows), dtype=np.int64)
        tmp = self._path + f".{os.getpid()}.tmp.npz"
        np.savez_compressed(tmp, index=idx, x=np.stack([self._rows[int(i)] for i in idx]))
        os.replace(tmp, self._path)
        self._dirty = False

    def encode_flat(self, flat: np.ndarray) -> np.ndarray:
        """Features of configs given as flat config indices (a config that does not instantiate: NaN)."""
        order = [int(i) for i in np.asarray(flat).reshape(-1)]
        missing = sorted({i for i in order if i not in self._rows})
        if missing:
            got = self._hidden([self.space.config(i) for i in missing])
            for i, row in zip(missing, got, strict=True):
                self._rows[i] = np.pad(row, (0, WIDTH - len(row)), constant_values=np.nan)[:WIDTH]
            self._dirty = True
            self.save()
        if not order:
            return np.zeros((0, self.width))
        body = np.stack([self._rows[i] for i in order])
        return np.concatenate([np.repeat(self.shape[None, :], len(order), axis=0), body], axis=1)

    def encode_indices(self, idx: np.ndarray) -> np.ndarray:
        """Features of configs given as option-index rows (n, knobs) or flat config indices (n,)."""
        idx = np.asarray(idx)
        if idx.ndim == 1:
            return self.encode_flat(idx)
        return self.encode_flat(self.space.flat_indices(idx))

    def encode_values(self, values: list[dict[str, Any]]) -> np.ndarray:
        return self.encode_flat(np.array([self.space.index_of(self.space.from_json(v)) for v in values], dtype=np.int64))
