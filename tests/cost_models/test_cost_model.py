import numpy as np
import pytest

from tensortune.cost_models import XGBoostCostModel


def _spearman(a, b):
    ra = np.argsort(np.argsort(a))
    rb = np.argsort(np.argsort(b))
    return np.corrcoef(ra, rb)[0, 1]


@pytest.mark.parametrize("loss", ["rank", "reg"])
def test_xgb_learns_a_ranking(loss):
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, size=(400, 4))
    y = np.exp(-((x[:, 0] - 3) ** 2 + (x[:, 1] - 7) ** 2) / 10.0)
    y[rng.random(400) < 0.1] = 0.0  # failed measurements score 0, as in AutoTVM
    m = XGBoostCostModel(loss=loss, seed=0)
    m.fit(x[:300], y[:300])
    pred = m.predict(x[300:])
    ok = y[300:] > 0
    assert _spearman(pred[ok], y[300:][ok]) > 0.8


def test_xgb_errors():
    with pytest.raises(ValueError):
        XGBoostCostModel(loss="hinge")
    m = XGBoostCostModel()
    assert not m.fitted
    with pytest.raises(RuntimeError):
        m.predict(np.zeros((1, 2)))
    with pytest.raises(ValueError):
        m.fit(np.zeros((0, 2)), np.zeros(0))
