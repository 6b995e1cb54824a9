import numpy as np

from tensortune.explorers import SimulatedAnnealing
from tensortune.space import Config, Constraint, OptionKnob, SearchSpace


def _space(constraints=()):
    return SearchSpace([OptionKnob(f"k{i}", list(range(20))) for i in range(4)], constraints)


TARGET = np.array([13, 2, 17, 9])


def score(idx):
    return -np.sum((idx - TARGET) ** 2, axis=1).astype(float)


def test_sa_finds_the_maximum_of_a_model():
    sp = _space()
    sa = SimulatedAnnealing()
    out = sa.propose(sp, score, 16, set(), np.random.default_rng(0))
    assert len(out) == 16
    assert out[0][0] == Config(tuple(TARGET))  # the optimum of 160,000 configs
    scores = [s for _, s in out]
    assert scores == sorted(scores, reverse=True)
    assert 1 <= sa.steps <= 500


def test_sa_excludes_visited_and_invalid():
    cons = [Constraint("k0 odd", lambda v: v["k0"] % 2 == 1)]
    sp = _space(cons)
    visited = {Config(tuple(TARGET))}
    out = SimulatedAnnealing().propose(sp, score, 32, visited, np.random.default_rng(1))
    cfgs = [c for c, _ in out]
    assert Config(tuple(TARGET)) not in cfgs
    assert all(sp.is_valid(c) for c in cfgs)
    assert len(set(cfgs)) == len(cfgs)


def test_sa_chains_persist_across_rounds():
    sp = _space()
    sa = SimulatedAnnealing(n_chains=8, max_steps=20)
    sa.propose(sp, score, 4, set(), np.random.default_rng(2))
    first = sa._points.copy()
    sa.propose(sp, score, 4, set(), np.random.default_rng(3))
    # the second round starts where the first ended, so chains stay near the optimum
    d_first = np.abs(first - TARGET).sum(axis=1).mean()
    d_second = np.abs(sa._points - TARGET).sum(axis=1).mean()
    assert d_second <= d_first + 2


def test_sa_beats_random_on_the_model():
    sp = _space()
    rng = np.random.default_rng(4)
    sa_best = SimulatedAnnealing(n_chains=16, max_steps=100).propose(sp, score, 1, set(), rng)[0][1]
    rand_best = score(sp.random_indices(16 * 100, rng)).max()
    assert sa_best > rand_best
