"""A bootstrap ensemble of XGBoost regressors: a surrogate with an uncertainty.

Glimpse's acquisition function (MetaBO's state) reads the surrogate's prediction *and* its uncertainty
at each candidate; AutoTVM's single booster has no uncertainty. Each of ``members`` boosters is fitted on
a bootstrap resample of the outcomes (throughputs normalised by the best, as in
:class:`~tensortune.cost_models.xgb.XGBoostCostModel`); the prediction is their mean, the uncertainty
their standard deviation. It is a :class:`~tensortune.cost_models.base.CostModel` (``fit``/``predict``),
so an explorer walks on the mean.
"""

from __future__ import annotations

import numpy as np
import xgboost as xgb

from tensortune.cost_models.base import training_arrays
from tensortune.cost_models.xgb import dmatrix, predict


class BootstrapEnsemble:
    def __init__(self, members: int = 5, seed: int = 0, num_rounds: int = 60, max_depth: int = 3,
                 eta: float = 0.3) -> None:
        if members < 2:
            raise ValueError(f"an ensemble needs at least 2 members, got {members}")
        self.members = members
        self.num_rounds = num_rounds
        self.seed = seed
        self.params = {"max_depth": max_depth, "eta": eta, "gamma": 1e-4, "min_child_weight": 1, "lambda": 1.0,
                       "objective": "reg:squarederror", "verbosity": 0, "nthread": 1}
        self._boosters: list[xgb.Booster] = []
        self._fits = 0

    @property
    def fitted(self) -> bool:
        return bool(self._boosters)

    def fit(self, x: np.ndarray, y: np.ndarray) -> None:
        x, y = training_arrays(x, y)
        top = float(np.max(y))
        y = y / top if top > 0 else y
        rng = np.random.default_rng((self.seed, self._fits))
        self._fits += 1
        self._boosters = []
        for m in range(self.members):
            rows = rng.integers(0, len(y), len(y))
            d = dmatrix(x[rows], int(self.params["nthread"]), label=y[rows])
            self._boosters.append(xgb.train({**self.params, "seed": self.seed * 1000 + m}, d,
                                            num_boost_round=self.num_rounds))

    def predict_all(self, x: np.ndarray) -> np.ndarray:
        """(members, n) predictions."""
        if not self._boosters:
            raise RuntimeError("the ensemble is not fitted")
        return np.stack([predict(b, x) for b in self._boosters]).astype(np.float64)

    def predict_mean_std(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        p = self.predict_all(x)
        return p.mean(axis=0), p.std(axis=0)

    def predict(self, x: np.ndarray) -> np.ndarray:
        if not self._boosters:
            return np.zeros(len(x))
        return self.predict_all(x).mean(axis=0)
