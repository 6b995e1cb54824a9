"""The greedy sampler: AutoTVM's top of the plan, and its submodular pick with ``diversity``."""

from __future__ import annotations

import numpy as np
import pytest

from tensortune.samplers.greedy import GreedyEpsilon, submodular_pick
from tensortune.space import Config, OptionKnob, SearchSpace


def _space() -> SearchSpace:
    return SearchSpace([OptionKnob("a", list(range(6))), OptionKnob("b", list(range(6))),
                        OptionKnob("c", list(range(6)))])


def test_without_diversity_the_greedy_part_is_the_top_of_the_candidates() -> None:
    sp = _space()
    cands = [(Config((0, 0, i)), 10.0 - i) for i in range(6)] + [(Config((1, i, 0)), 1.0 - i) for i in range(6)]
    out = GreedyEpsilon(epsilon=0.0).select(cands, 5, sp, {Config((0, 0, 1))}, np.random.default_rng(0))
    assert out == [Config((0, 0, 0)), Config((0, 0, 2)), Config((0, 0, 3)), Config((0, 0, 4)), Config((0, 0, 5))]


def test_diversity_trades_near_duplicates_of_the_best_for_configs_with_new_knob_values() -> None:
    sp = _space()
    # the model's top four differ from the best on one knob; the next four are new on every knob
    cands = [(Config((0, 0, i)), 10.0 - i) for i in range(4)] + \
            [(Config((i + 1, i + 1, 5 - i)), 5.0 - i) for i in range(4)]
    out = GreedyEpsilon(epsilon=0.0, diversity=2).select(cands, 4, sp, set(), np.random.default_rng(0))
    assert out[0] == Config((0, 0, 0))  # the best stays first
    assert len(set(out)) == 4
    assert sum(c.indices[:2] == (0, 0) for c in out) == 1  # one of the near-duplicates, not four
    # ... and the pool is the top 2 x 4: nothing below it is picked
    assert set(out) <= {c for c, _ in cands[:8]}


def test_submodular_pick_counts_new_values_per_knob_and_breaks_ties_by_rank() -> None:
    pool = [Config((0, 0)), Config((0, 1)), Config((1, 0)), Config((1, 1))]
    # after (0, 0): (0, 1) and (1, 0) bring one new value each, (1, 1) two
    assert submodular_pick(pool, 2) == [Config((0, 0)), Config((1, 1))]
    # after (0, 0) and (1, 1) every value is seen: rank decides
    assert submodular_pick(pool, 3) == [Config((0, 0)), Config((1, 1)), Config((0, 1))]
    assert submodular_pick(pool[:2], 3) == pool[:2]  # a pool no larger than the plan is the plan


def test_the_epsilon_share_stays_random_and_outside_the_picks() -> None:
    sp = _space()
    cands = [(Config((i % 6, (i // 6) % 6, 0)), 100.0 - i) for i in range(40)]
    out = GreedyEpsilon(epsilon=0.25, diversity=2).select(cands, 8, sp, set(), np.random.default_rng(3))
    assert len(out) == len(set(out)) == 8
    assert all(c in {cc for cc, _ in cands[:12]} for c in out[:6])  # 6 greedy from a pool of 12


def test_a_diversity_ratio_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="diversity"):
        GreedyEpsilon(diversity=0.5)
