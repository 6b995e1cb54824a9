"""ML2Tuner (Kim et al. 2024): a validity model V, a performance model P on visible features, and a model
A on visible plus hidden features, with (alpha + 1) * N candidate selection.

Each round (after ``n_initial`` random measurements):

1. V (``cost_models/validity.py``) is refit on every outcome (ran or not); P (XGBoost regression) on the
   valid outcomes only, from the visible features (knob encodings).
2. The explorer (simulated annealing, as in TVM) walks the space scored by P, with configurations V
   predicts invalid scored below everything else; of its proposals, the (alpha + 1) * N best by P that V
   predicts valid are kept (random V-valid configurations fill up if the walk found too few).
3. All of them are compiled to extract hidden features (``features/hidden.py``).
4. A (XGBoost regression on visible + hidden features, trained on the valid outcomes, whose hidden
   features come from the same compile step) picks the N to measure.

So every round measures exactly N configurations. Model settings are the paper's (Appendix A): P and A
``reg:squarederror``, depth 14, learning rate 0.01, 300 rounds; V ``binary:hinge``, depth 5, learning
rate 0.1, subsample 0.6; N = 10, alpha = 1.

With ``transfer`` (a ``transfer.TransferPrior``, issue 19), P learns from the other tasks' records too: it
sees the prior's transferable features and is fitted, with rank loss (``transfer_loss``; see
``transfer.prior.CROSS_TASK_LOSS``), on
the sources and the task's own valid outcomes, the sources fading as those arrive (``PriorCostModel``, on
``transfer.prior.FADE`` measurements as every recipe: ML2Tuner's round of N = 10 would fade them after two
rounds). V and
A stay the task's own: other tasks' records have no hidden features (they would have to be compiled again)
and their failures are another space's.
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from tensortune.cost_models.validity import ValidityModel
from tensortune.cost_models.xgb import XGBoostCostModel
from tensortune.explorers.base import Explorer
from tensortune.explorers.simulated_annealing import SimulatedAnnealing
from tensortune.space import Config, SearchSpace
from tensortune.strategies.base import Round
from tensortune.strategies.rounds import Candidates, RoundStrategy


class HiddenFn(Protocol):
    """Hidden features of configurations (``features/hidden.py``); ``compiles`` counts compilations."""

    compiles: int

    def __call__(self, cfgs: list[Config]) -> np.ndarray: ...


def paper_regressor(seed: int = 0, loss: str = "reg") -> XGBoostCostModel:
    """P and A as in ML2Tuner's Appendix A (``loss="rank"``: the same trees ranking, for a P that transfers)."""
    return XGBoostCostModel(loss=loss, seed=seed, num_rounds=300, max_depth=14, eta=0.01)


def fit_p_and_a(space: SearchSpace, hidden: HiddenFn, cfgs: list[Config], ys: list[float], seed: int = 0
                ) -> tuple[XGBoostCostModel, XGBoostCostModel]:
    """P and A fitted on the valid outcomes among ``cfgs`` (for held-out comparisons of the two)."""
    ok = [i for i, y in enumerate(ys) if y > 0]
    if len(ok) < 2:
        raise ValueError("P and A need at least two valid outcomes")
    good = [cfgs[i] for i in ok]
    y = np.array([ys[i] for i in ok])
    vis = space.encode(good)
    p, a = paper_regressor(seed), paper_regressor(seed)
    p.fit(vis, y)
    a.fit(np.hstack([vis, hidden(good)]), y)
    return p, a


class ML2Tuner(RoundStrategy):
    def __init__(self, space: SearchSpace, seed: int, hidden: HiddenFn, n: int = 10, alpha: float = 1.0,
                 n_initial: int | None = None, explorer: Explorer | None = None, n_explore: int = 512,
                 transfer: Any = None, transfer_loss: str = "rank") -> None:
        super().__init__(space, seed)
        if n < 1:
            raise ValueError("N (configurations measured per round) must be >= 1")
        if alpha < 0:
            raise ValueError("alpha must be >= 0")
        self.hidden = hidden
        self.n = n
        self.alpha = alpha
        self.n_pool = int(round((alpha + 1) * n))
        self.n_initial = n if n_initial is None else n_initial
        self.explorer = explorer or SimulatedAnnealing()
        self.n_explore = n_explore
        self.v = ValidityModel(seed=seed)
        self.p: Any = paper_regressor(seed)
        self._p_encode = space.encode_indices
        if transfer:
            self.p = transfer.cost_model(paper_regressor(seed, transfer_loss))
            self._p_encode = transfer.model_features.encode_indices
        self.a = paper_regressor(seed)
        self.name = "ml2tuner"

    def ask(self, n: int) -> list[Config]:
        if self._plan:  # a round's N configurations, possibly over several batches
            out, self._plan = self._plan[:n], self._plan[n:]
            return out
        # the initial random configurations, or a random round of N when a round found nothing to propose
        k = self.n_initial - len(self.xs) if len(self.xs) < self.n_initial else self.n
        return self.space.sample(min(n, k), self.rng, exclude=self.visited)

    def tell(self, configs: list[Config], throughputs: list[float]) -> None:
        super().tell(configs, throughputs)
        if not self._plan and len(self.xs) >= self.n_initial:
            self.replan()

    def _v_score(self, idx: np.ndarray, pred: np.ndarray) -> np.ndarray:
        if not self.v.fitted:
            return pred
        ok = self.v.predict(self.space.encode_indices(idx))
        return np.where(ok, pred, float(np.min(pred, initial=0.0)) - 1.0)

    def refit(self, rnd: Round) -> bool:
        """V on every outcome; P on the valid ones (False: fewer than two valid, nothing to rank by)."""
        ys = np.array(self.ys)
        valid = ys > 0
        vis = self.space.encode(self.xs)
        self.v.fit(vis, valid)
        self._fitted = (ys, valid, vis)
        if valid.sum() < 2:
            return False
        self.p.fit(self._p_vis(self.xs)[valid], ys[valid])
        return True

    def _p_vis(self, cfgs: list[Config]) -> np.ndarray:
        """P's features of ``cfgs``: the space's encoding, or the prior's transferable one."""
        return self._p_encode(self.space.indices(cfgs))

    def fallback(self, rnd: Round) -> list[Config]:
        """N random configurations V lets through."""
        rnd.compiled, rnd.rejected = 0, 0
        return self._v_valid_random(self.n, set())

    def propose(self, rnd: Round) -> Candidates:
        ys = self._fitted[0]

        def score(idx: np.ndarray) -> np.ndarray:
            return self._v_score(idx, self.p.predict(self._p_encode(idx)))

        order = np.argsort(-ys, kind="stable")
        incumbents = [self.xs[i] for i in order[: self.n] if ys[i] > 0]
        cands = self.explorer.propose(self.space, score, self.n_explore, self.visited, self.rng, incumbents=incumbents)
        rnd.steps, rnd.queries = self.explorer.steps, self.explorer.queries
        return cands

    def filter(self, cands: Candidates, rnd: Round) -> Candidates:
        """V removes the candidates it predicts invalid; the rest ranked by P."""
        cfgs = [c for c, _ in cands]
        ok = self.v.predict(self.space.encode(cfgs)) if cfgs else np.zeros(0, dtype=bool)
        rnd.rejected = int((~ok).sum())
        pred = self.p.predict(self._p_vis(cfgs)) if cfgs else np.zeros(0)
        return [(cfgs[i], float(pred[i])) for i in np.argsort(-pred, kind="stable") if ok[i]]

    def sample(self, cands: Candidates, rnd: Round) -> list[Config]:
        """The (alpha+1)N best by P (topped up with V-valid random ones) are compiled for hidden
        features; A picks N of them."""
        _, valid, vis = self._fitted
        pool = [c for c, _ in cands][: self.n_pool]
        if len(pool) < self.n_pool:
            pool += self._v_valid_random(self.n_pool - len(pool), set(pool))
        if not pool:
            rnd.compiled = 0
            return []
        rnd.pool = len(pool)
        good = [c for c, ok in zip(self.xs, valid, strict=True) if ok]
        # compile the pool (and any measured valid config not compiled yet) for hidden features
        before = self.hidden.compiles
        h_pool = self.hidden(pool)
        self.a.fit(np.hstack([vis[valid], self.hidden(good)]), np.array(self.ys)[valid])
        rnd.compiled = self.hidden.compiles - before
        a_pred = self.a.predict(np.hstack([self.space.encode(pool), h_pool]))
        return [pool[i] for i in np.argsort(-a_pred, kind="stable")[: self.n]]

    def _v_valid_random(self, k: int, taken: set[Config]) -> list[Config]:
        """Up to ``k`` unmeasured random configurations that V predicts valid (any, if V is unfitted)."""
        out: list[Config] = []
        exclude = self.visited | taken
        for _ in range(20):
            want = max(4 * k, 64)
            batch = self.space.sample(want, self.rng, exclude=exclude | set(out))
            if not batch:
                break
            ok = self.v.predict(self.space.encode(batch))
            out += [c for c, good in zip(batch, ok, strict=True) if good][: k - len(out)]
            if len(out) >= k or len(batch) < want:  # done, or the space has no more unmeasured configs
                break
        return out
