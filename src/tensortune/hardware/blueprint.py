"""Glimpse's Blueprint: a hardware's public specification as a small vector (the paper, section 3.1).

Specs of one family are log-scaled where they span orders of magnitude (sizes, counts, bandwidths),
standardised (zero mean, unit variance per feature), and projected by PCA onto the first ``d``
principal axes. The information lost is the RMSE of reconstructing the standardised specs from the
``d``-dimensional Blueprint; ``information_loss`` gives it for every ``d`` (the paper's Figure 8,
where a few dimensions keep the loss under 0.5%).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from tensortune.hardware.specs import HardwareSpec, feature_matrix


def _prepare(x: np.ndarray) -> np.ndarray:
    """Log-scale positive features that span more than a factor of 8 (counts, sizes, bandwidths)."""
    x = np.array(x, dtype=np.float64)
    for j in range(x.shape[1]):
        col = x[:, j]
        if np.all(col > 0) and col.max() / col.min() > 8:
            x[:, j] = np.log2(col)
    return x


@dataclass
class Blueprint:
    columns: list[str]
    mean: np.ndarray
    scale: np.ndarray
    components: np.ndarray  # (d, n_features) principal axes
    explained: np.ndarray  # variance ratio of each axis

    @classmethod
    def fit(cls, specs: list[HardwareSpec], dim: int) -> Blueprint:
        cols, x = feature_matrix(specs)
        if not 1 <= dim <= min(x.shape):
            raise ValueError(f"a Blueprint of {len(specs)} specs with {x.shape[1]} features has 1 to "
                             f"{min(x.shape)} dimensions, not {dim}")
        x = _prepare(x)
        mean, scale = x.mean(axis=0), x.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        z = (x - mean) / scale
        _, s, vt = np.linalg.svd(z, full_matrices=False)
        var = s**2 / max(float(np.sum(s**2)), 1e-12)
        return cls(cols, mean, scale, vt[:dim], var[:dim])

    @property
    def dim(self) -> int:
        return len(self.components)

    def standardise(self, specs: list[HardwareSpec]) -> np.ndarray:
        cols, x = feature_matrix(specs)
        if cols != self.columns:
            raise ValueError("these specs have other features than the Blueprint was fitted on")
        return (_prepare(x) - self.mean) / self.scale

    def embed(self, specs: list[HardwareSpec]) -> np.ndarray:
        """The Blueprint of each spec: (n, dim)."""
        return self.standardise(specs) @ self.components.T

    def reconstruction_rmse(self, specs: list[HardwareSpec]) -> float:
        """RMSE of the standardised specs rebuilt from their Blueprints (0: nothing lost)."""
        z = self.standardise(specs)
        return float(np.sqrt(np.mean((z - self.embed(specs) @ self.components) ** 2)))


def information_loss(specs: list[HardwareSpec]) -> list[tuple[int, float]]:
    """(dimension, reconstruction RMSE of the standardised specs) for every possible dimension."""
    _, x = feature_matrix(specs)
    return [(d, Blueprint.fit(specs, d).reconstruction_rmse(specs)) for d in range(1, min(x.shape) + 1)]
