"""ML2Tuner's model V: an XGBoost classifier of whether a configuration will run.

Trained on every measured outcome, valid or not, from the visible features (knob encodings). Defaults
are the paper's (Appendix A, Table 4): ``binary:hinge``, depth 5, learning rate 0.1, subsample 0.6.
Until both outcomes have been seen it cannot tell them apart and lets everything through (``fitted``
is False), so a filter built on it never blocks a search before it has learned something.
"""

from __future__ import annotations

import numpy as np
import xgboost as xgb

from tensortune.cost_models.xgb import dmatrix, predict


class ValidityModel:
    def __init__(self, seed: int = 0, num_rounds: int = 100, max_depth: int = 5, eta: float = 0.1,
                 subsample: float = 0.6, objective: str = "binary:hinge") -> None:
        if objective not in ("binary:hinge", "binary:logistic"):
            raise ValueError(f"validity objective must be binary:hinge or binary:logistic, not {objective!r}")
        self.num_rounds = num_rounds
        self.params = {"objective": objective, "max_depth": max_depth, "eta": eta, "subsample": subsample,
                       "seed": seed, "verbosity": 0, "nthread": 1}
        self._booster: xgb.Booster | None = None
        self.n_valid = 0
        self.n_invalid = 0

    @property
    def fitted(self) -> bool:
        return self._booster is not None

    def fit(self, x: np.ndarray, valid: np.ndarray) -> None:
        x = np.asarray(x, dtype=np.float32)
        valid = np.asarray(valid, dtype=bool)
        if len(x) != len(valid):
            raise ValueError(f"{len(x)} feature rows but {len(valid)} labels")
        self.n_valid = int(valid.sum())
        self.n_invalid = int((~valid).sum())
        if self.n_valid == 0 or self.n_invalid == 0:
            self._booster = None  # one class only: nothing to separate yet
            return
        self._booster = xgb.train(self.params, dmatrix(x, int(self.params["nthread"]), label=valid.astype(np.float32)),
                                  num_boost_round=self.num_rounds)

    def predict(self, x: np.ndarray) -> np.ndarray:
        """True where a configuration is predicted to run (everything, before the model is fitted)."""
        x = np.asarray(x, dtype=np.float32)
        if self._booster is None:
            return np.ones(len(x), dtype=bool)
        return predict(self._booster, x) >= 0.5
