"""MAPPO (ARCO's multi-agent explorer): it learns, its state round-trips."""

import numpy as np

from helpers import KNOB_TARGET, knob_landscape
from tensortune.explorers.mappo import MAPPOExplorer

TARGET = KNOB_TARGET


def _grouped_landscape():
    return knob_landscape(("hardware", "scheduling", "mapping"))


def test_mappo_improves_the_reward():
    sp, score = _grouped_landscape()
    agent, rng = MAPPOExplorer(seed=0, n_walkers=64, max_steps=150), np.random.default_rng(0)
    for _ in range(6):
        agent.propose(sp, score, 16, set(), rng)
    assert len(agent._net.actors) == 3  # one actor per knob group, one critic
    first, last = agent.reward_history[0], agent.reward_history[-1]
    assert last > first + 0.2 * abs(first), agent.reward_history
    # the critic learned to value configs near the optimum above far ones
    near, far = np.array([TARGET]), np.array([[0, 11, 0, 11, 0, 11]])
    assert agent.values(sp, near)[0] > agent.values(sp, far)[0]


def test_mappo_state_roundtrip():
    sp, score = _grouped_landscape()
    a = MAPPOExplorer(seed=1, n_walkers=16, max_steps=20)
    a.propose(sp, score, 8, set(), np.random.default_rng(0))
    blob = a.state_bytes()
    b = MAPPOExplorer(seed=5)
    b.load_state_bytes(blob)
    idx = sp.random_indices(10, np.random.default_rng(1))
    assert np.allclose(a.values(sp, idx), b.values(sp, idx)) and b.rounds == 1
