"""Contract suite, run on every registered sampler: at most k configs (adaptive ones may choose
fewer), all valid, none excluded, no duplicates, deterministic under a seed. A new sampler
registered in ``samplers/registry.py`` is tested here without a line of its own."""

from __future__ import annotations

import numpy as np
import pytest

from tensortune.samplers.registry import candidate_factor, make_sampler, sampler_names
from tensortune.space import Config, Constraint, OptionKnob, SearchSpace


def _space() -> SearchSpace:
    return SearchSpace([OptionKnob("a", list(range(10))), OptionKnob("b", list(range(10))),
                        OptionKnob("c", list(range(4)))],
                       [Constraint("a + b <= 15", lambda v: v["a"] + v["b"] <= 15)])


def _candidates(sp: SearchSpace, n: int, seed: int) -> list[tuple[Config, float]]:
    cfgs = sp.sample(n, np.random.default_rng(seed))
    scored = [(c, float(c.indices[0] + c.indices[1] - abs(c.indices[2] - 2))) for c in cfgs]
    return sorted(scored, key=lambda cs: -cs[1])


@pytest.mark.parametrize("name", sampler_names())
def test_selection_is_at_most_k_valid_unexcluded_distinct(name: str) -> None:
    sp, k = _space(), 12
    cands = _candidates(sp, k * candidate_factor(name), 0)
    exclude = {c for c, _ in cands[:3]}
    out = make_sampler(name).select(cands, k, sp, exclude, np.random.default_rng(0))
    assert 0 < len(out) <= k
    assert len(set(out)) == len(out)
    assert all(sp.is_valid(c) and c not in exclude for c in out)


@pytest.mark.parametrize("name", sampler_names())
def test_deterministic_under_a_seed(name: str) -> None:
    sp = _space()
    cands = _candidates(sp, 60, 1)
    a = make_sampler(name).select(cands, 10, sp, set(), np.random.default_rng(4))
    b = make_sampler(name).select(cands, 10, sp, set(), np.random.default_rng(4))
    assert a == b


def test_the_registry_knows_every_paper_sampler() -> None:
    assert set(sampler_names()) >= {"greedy", "adaptive", "confidence"}
    # Chameleon clusters the plan_size best candidates (issue 20); ARCO draws from 8 plans of them
    assert candidate_factor("greedy") == candidate_factor("adaptive") == 1 and candidate_factor("confidence") == 8
