"""Chameleon's adaptive sampling: the knee rule, clustering, snapping to valid configs, mode synthesis."""

import numpy as np
import pytest

from tensortune.samplers.adaptive import AdaptiveSampler, knee_k, mode_config
from tensortune.space import Config, Constraint, OptionKnob, SearchSpace


def test_knee_rule():
    assert knee_k([(8, 100.0), (16, 30.0), (24, 20.0), (32, 15.0)], 2.5) == 24  # 2.5*20 > 30
    assert knee_k([(8, 100.0), (16, 10.0), (24, 1.0)], 2.5) == 24  # no knee: the last k
    assert knee_k([(8, 100.0), (16, 90.0)], 2.5) == 16


def test_adaptive_sampling_on_clustered_candidates():
    sp = SearchSpace([OptionKnob(f"k{i}", list(range(40))) for i in range(3)])
    rng = np.random.default_rng(0)
    centers = rng.choice(np.arange(2, 38), size=(8, 3), replace=True)
    cands = []
    for c in centers:
        for d in [(0, 0, 0), (1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (0, -1, 0)]:
            cands.append(Config(tuple(int(v) for v in np.array(c) + d)))
    cands = list(dict.fromkeys(cands))
    s = AdaptiveSampler()
    out = s.select([(c, 0.0) for c in cands], 64, sp, set(), rng)
    # 8 tight clusters: the loss falls ~100x from k=8 on, then slowly; the knee rule stops at 16
    assert s.last_losses[0][0] == 8 and s.last_k == 16
    assert len(out) == len(set(out)) <= 16
    assert all(sp.is_valid(c) for c in out)


def test_snapping_to_valid_configs():
    sp = SearchSpace([OptionKnob("a", list(range(10))), OptionKnob("b", list(range(10)))],
                     [Constraint("a != 5", lambda v: v["a"] != 5)])
    # two candidates whose mean rounds to a = 5 (invalid): the nearest member is used instead
    cands = [Config((4, 3)), Config((6, 3))] * 1
    s = AdaptiveSampler(ks=(1,))
    k, centers, _ = s.cluster(np.array([[4 / 9, 3 / 9], [6 / 9, 3 / 9]]), np.random.default_rng(0))
    assert k == 1 and np.allclose(centers[0] * 9, [5, 3])
    out = s.select([(c, 0.0) for c in cands], 8, sp, set(), np.random.default_rng(0))
    assert out in ([Config((4, 3))], [Config((6, 3))])


def test_measured_centroids_replaced_by_mode_synthesis():
    sp = SearchSpace([OptionKnob("a", list(range(10))), OptionKnob("b", list(range(10)))])
    cands = [Config((1, 7)), Config((1, 2)), Config((3, 7)), Config((8, 7)), Config((1, 9))]
    assert mode_config(cands) == Config((1, 7))
    s = AdaptiveSampler(ks=(1,))
    # the single centroid snaps to (3, 6), which was measured: the mode (1, 7) replaces it
    out = s.select([(c, 0.0) for c in cands], 8, sp, {Config((3, 6))}, np.random.default_rng(0))
    assert out == [Config((1, 7))] and s.last_synthesized == 1
    # if the synthesised config was measured too, the slot is dropped: fewer measurements this round
    out = s.select([(c, 0.0) for c in cands], 8, sp, {Config((3, 6)), Config((1, 7))}, np.random.default_rng(0))
    assert out == []


def test_keep_best_opens_the_plan_with_the_best_scored_unmeasured_candidates():
    sp = SearchSpace([OptionKnob("a", list(range(10))), OptionKnob("b", list(range(10)))])
    # best first, as an explorer hands them over; the best one was measured already
    cands = [Config((9, 9)), Config((8, 9)), Config((1, 7)), Config((1, 2)), Config((3, 7)), Config((8, 7))]
    scored = [(c, 1.0 - 0.1 * i) for i, c in enumerate(cands)]
    plain = AdaptiveSampler(ks=(1,), epsilon=0.0).select(scored, 8, sp, {Config((9, 9))}, np.random.default_rng(0))
    assert Config((8, 9)) not in plain  # the centroid alone: (5, 7)
    out = AdaptiveSampler(ks=(1,), epsilon=0.0, keep_best=2).select(scored, 8, sp, {Config((9, 9))},
                                                                    np.random.default_rng(0))
    assert out[:2] == [Config((8, 9)), Config((1, 7))] and out[2:] == plain
    assert Config((9, 9)) not in out
    with pytest.raises(ValueError, match="keep_best"):
        AdaptiveSampler(keep_best=-1)
