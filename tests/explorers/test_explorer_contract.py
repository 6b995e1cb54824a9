"""Contract suite, run on every registered explorer (as Optuna's reusable sampler tests): proposals
are at most n valid, unexcluded, distinct configs, best first; the learned state round-trips; two
explorers with the same seed propose the same configs. A new explorer registered in
``explorers/registry.py`` is tested here without a line of its own."""

from __future__ import annotations

import numpy as np
import pytest

from tensortune.explorers.registry import explorer_names, make_explorer
from tensortune.space import Config, Constraint, OptionKnob, SearchSpace

TARGET = np.array([9, 2, 11, 5, 7, 1])


def _space() -> SearchSpace:
    knobs = [OptionKnob(f"k{i}", list(range(12)), group=("hardware", "scheduling", "mapping")[i % 3]) for i in range(6)]
    return SearchSpace(knobs, [Constraint("k0 + k1 <= 18", lambda v: v["k0"] + v["k1"] <= 18)])


def _score(idx: np.ndarray) -> np.ndarray:
    return -np.sqrt(np.sum((np.asarray(idx) - TARGET) ** 2, axis=1)).astype(float)


def _small(name: str, seed: int = 0):  # type: ignore[no-untyped-def]
    opts = {"sa": {"n_chains": 32, "max_steps": 60}, "ppo": {"n_walkers": 32, "max_steps": 30},
            "mappo": {"n_walkers": 32, "max_steps": 30}}.get(name, {})
    return make_explorer(name, seed, **opts)


@pytest.mark.parametrize("name", explorer_names())
def test_proposals_are_few_valid_unexcluded_distinct_and_ranked(name: str) -> None:
    sp, rng = _space(), np.random.default_rng(0)
    exclude = set(sp.sample(40, np.random.default_rng(1)))
    ex = _small(name)
    for _ in range(2):  # a second round too: state carried over must not break the contract
        out = ex.propose(sp, _score, 16, exclude, rng)
        cfgs = [c for c, _ in out]
        assert 0 < len(out) <= 16
        assert len(set(cfgs)) == len(cfgs)
        assert all(sp.is_valid(c) and c not in exclude for c in cfgs)
        scores = [s for _, s in out]
        assert scores == sorted(scores, reverse=True)
        assert np.allclose(scores, _score(np.array([c.indices for c in cfgs])))
        assert ex.steps >= 1 and ex.queries >= len(out)
        exclude |= set(cfgs)


@pytest.mark.parametrize("name", explorer_names())
def test_state_round_trips(name: str) -> None:
    sp = _space()
    a = _small(name, seed=1)
    a.propose(sp, _score, 8, set(), np.random.default_rng(0))
    blob = a.state_bytes()
    b = _small(name, seed=7)
    if blob is None:  # keeps no learned state: nothing to restore
        assert b.state_bytes() is None
        return
    b.load_state_bytes(blob)
    assert b.state_bytes() == blob
    # the restored agent proposes what the original would (same rng stream from here)
    pa = a.propose(sp, _score, 8, set(), np.random.default_rng(5))
    pb = b.propose(sp, _score, 8, set(), np.random.default_rng(5))
    assert [c for c, _ in pa] == [c for c, _ in pb]


@pytest.mark.parametrize("name", explorer_names())
def test_deterministic_under_a_seed(name: str) -> None:
    sp = _space()
    runs = []
    for _ in range(2):
        ex, rng = _small(name, seed=3), np.random.default_rng(3)
        runs.append([[c for c, _ in ex.propose(sp, _score, 8, set(), rng)] for _ in range(2)])
    assert runs[0] == runs[1]
    assert all(isinstance(c, Config) for r in runs[0] for c in r)
