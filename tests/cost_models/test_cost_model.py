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


def test_a_groups_pull_on_the_rank_loss_grows_as_the_root_of_its_rows():
    """XGBoost's pairwise rank loss draws pairs per row, so a group's weight is divided by the square root of
    its rows over the mean (``rank_group_weights``): a 1,024-row source table pulls 8 times as hard as a task's
    first 16 outcomes at equal weight, not 64 times; groups of one size keep their weights."""
    from tensortune.cost_models.xgb import RANK_GROUP_SIZE_POWER, rank_group_weights

    assert RANK_GROUP_SIZE_POWER == 0.5
    w = rank_group_weights([1.0, 1.0], [1024, 16])
    assert (w[0] * 1024) / (w[1] * 16) == pytest.approx(8.0)
    w = rank_group_weights([0.25, 0.5, 1.0], [40, 40, 40])
    assert w.tolist() == pytest.approx([0.25, 0.5, 1.0])
    w = rank_group_weights([0.3, 1.0], [100, 25])  # the weights scale, the sizes correct
    assert (w[0] * 100) / (w[1] * 25) == pytest.approx(0.3 * 2.0)


def test_fit_groups_hands_xgboost_the_size_corrected_group_weights(monkeypatch):
    import xgboost as xgb

    from tensortune.cost_models.xgb import rank_group_weights

    seen = []
    real = xgb.DMatrix.set_weight
    monkeypatch.setattr(xgb.DMatrix, "set_weight", lambda self, w: (seen.append(np.asarray(w)), real(self, w))[1])
    rng = np.random.default_rng(0)
    xs = [rng.random((n, 3)) for n in (200, 8)]
    ys = [x[:, 0] for x in xs]
    m = XGBoostCostModel(loss="rank", num_rounds=5)
    m.fit_groups(xs, ys, [0.5, 1.0])
    assert len(seen) == 1 and seen[0] == pytest.approx(rank_group_weights([0.5, 1.0], [200, 8]))
    assert m.fitted
    # an empty group is left out, and the others are corrected among themselves
    seen.clear()
    m.fit_groups([*xs, np.zeros((0, 3))], [*ys, np.zeros(0)], [0.5, 1.0, 1.0])
    assert seen[0] == pytest.approx(rank_group_weights([0.5, 1.0], [200, 8]))


def test_the_xgboost_models_query_without_a_dmatrix_and_train_on_one_thread(monkeypatch):
    """Every XGBoost model scores candidates with ``inplace_predict`` (the values ``predict`` on a DMatrix gives),
    not a DMatrix per query, and builds its training data on its one thread: a DMatrix is built on every core by
    default, and a search scores a few thousand candidates a plan (stop 106: 14-18 ms a query with another
    process busy on a 2-core VM, against 0.2-2 ms)."""
    import xgboost as xgb

    from tensortune.cost_models.ensemble import BootstrapEnsemble
    from tensortune.cost_models.validity import ValidityModel

    rng = np.random.default_rng(0)
    x = rng.uniform(0, 10, size=(200, 4))
    y = np.exp(-((x[:, 0] - 3) ** 2) / 10.0)
    q = rng.uniform(0, 10, size=(50, 4))
    built: list[object] = []
    real = xgb.DMatrix.__init__

    def spy(self, data, *args, **kw):
        built.append(kw.get("nthread"))
        real(self, data, *args, **kw)

    monkeypatch.setattr(xgb.DMatrix, "__init__", spy)
    rank = XGBoostCostModel(loss="rank", num_rounds=20)
    rank.fit(x, y)
    groups = XGBoostCostModel(loss="rank", num_rounds=20)
    groups.fit_groups([x[:100], x[100:]], [y[:100], y[100:]], [1.0, 0.5])
    valid = ValidityModel(num_rounds=20)
    valid.fit(x, y > 0.5)
    ens = BootstrapEnsemble(members=3, num_rounds=20)
    ens.fit(x, y)
    assert built and set(built) == {1}  # every training DMatrix on one thread
    built.clear()
    preds = [rank.predict(q), groups.predict(q), valid.predict(q), ens.predict_all(q)]
    assert built == []  # no DMatrix for a query
    monkeypatch.setattr(xgb.DMatrix, "__init__", real)
    # the same values a DMatrix query gives
    assert np.array_equal(preds[0], rank._booster.predict(xgb.DMatrix(q.astype(np.float32))))
    assert np.array_equal(preds[1], groups._booster.predict(xgb.DMatrix(q.astype(np.float32))))
    assert np.array_equal(preds[2], valid._booster.predict(xgb.DMatrix(q.astype(np.float32))) >= 0.5)
    assert np.array_equal(preds[3], np.stack([b.predict(xgb.DMatrix(q.astype(np.float32))) for b in ens._boosters]))
    assert preds[2].dtype == bool and 0 < preds[2].sum() < len(q)  # both classes predicted: a real check
