"""Glimpse's hardware-aware validity (the paper, section 3.4): one light threshold predictor per knob,
generated from the hardware's Blueprint and the layer; a configuration is rejected when more than
``tau`` = 1/3 of the knobs' predictors vote it invalid.

A knob's *magnitude* is what grows with the resources a config needs: a numeric option's value, a
split's inner tile (the product of all factors but the outermost). For every training (hardware,
layer) pair the knob's threshold is the magnitude that best separates valid from invalid configs by
"valid iff magnitude <= threshold" (balanced accuracy; the largest of the best; none if no threshold
beats keeping everything by ``MARGIN``, so a knob that does not matter rejects nothing). A ridge regression maps the context (Blueprint, log layer shape) to log2 of that
threshold; at tuning time every knob's predictor is generated for the new hardware and votes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tensortune.space.magnitudes import magnitude, magnitudes, option_magnitudes

__all__ = ["TAU", "ThresholdVote", "best_threshold", "magnitude", "magnitudes", "option_magnitudes"]

TAU = 1.0 / 3.0
MARGIN = 0.05  # balanced accuracy a threshold must gain over keeping everything


def best_threshold(m: np.ndarray, valid: np.ndarray) -> float:
    """The t maximising the balanced accuracy of "valid iff m <= t" (the mean of the shares of valid
    configs kept and invalid ones rejected, so a space that is mostly invalid does not make rejecting
    everything look best); the largest t among the best."""
    valid = np.asarray(valid, dtype=bool)
    order = np.unique(m)
    if valid.all() or not valid.any():
        return float(order[-1])  # nothing to separate: this knob rejects nothing
    acc = np.array([0.5 * (float((m[valid] <= t).mean()) + float((m[~valid] > t).mean())) for t in order])
    if acc.max() <= 0.5 + MARGIN:  # no threshold does clearly better than keeping everything
        return float(order[-1])
    return float(order[np.flatnonzero(acc >= acc.max() - 1e-12)[-1]])


@dataclass
class ThresholdVote:
    """Per-knob threshold predictors (ridge regressions of log2 threshold on the context)."""

    knobs: list[str]
    coef: np.ndarray  # (n_knobs, n_context + 1)
    tau: float = TAU
    trained_on: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def fit(cls, knobs: list[str], contexts: list[np.ndarray], mags: list[np.ndarray], valid: list[np.ndarray],
            ridge: float = 1.0, tau: float = TAU, trained_on: dict[str, Any] | None = None) -> ThresholdVote:
        """One group per training (hardware, layer): its context vector, its configs' log2 magnitudes
        (n, n_knobs) and validity (n,)."""
        if not contexts or not (len(contexts) == len(mags) == len(valid)):
            raise ValueError("validity voting needs one context, magnitude matrix and validity vector per group")
        if not 0 < tau < 1:
            raise ValueError(f"tau must be in (0, 1), got {tau}")
        x = np.array([np.append(c, 1.0) for c in contexts], dtype=np.float64)
        t = np.array([[best_threshold(m[:, j], v) for j in range(len(knobs))] for m, v in zip(mags, valid, strict=True)])
        reg = ridge * np.eye(x.shape[1])
        reg[-1, -1] = 0.0  # the intercept is not shrunk
        coef = np.linalg.solve(x.T @ x + reg, x.T @ t).T
        return cls(list(knobs), coef, tau, dict(trained_on or {}))

    def thresholds(self, context: np.ndarray) -> np.ndarray:
        """log2 threshold of every knob for one (hardware, layer) context."""
        return self.coef @ np.append(np.asarray(context, dtype=np.float64), 1.0)

    def votes(self, context: np.ndarray, mags: np.ndarray) -> np.ndarray:
        """(n, n_knobs): True where a knob's predictor votes the config invalid."""
        return np.asarray(mags) > self.thresholds(context)[None, :] + 1e-9

    def predict(self, context: np.ndarray, mags: np.ndarray) -> np.ndarray:
        """True where a config is predicted to run (at most ``tau`` of the knobs vote invalid)."""
        return self.votes(context, mags).mean(axis=1) <= self.tau

    def to_json(self) -> dict[str, Any]:
        return {"knobs": self.knobs, "coef": self.coef.tolist(), "tau": self.tau, "trained_on": self.trained_on}

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> ThresholdVote:
        return cls(list(d["knobs"]), np.array(d["coef"], dtype=np.float64), float(d["tau"]), dict(d.get("trained_on", {})))
