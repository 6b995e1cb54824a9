"""Chameleon's PPO explorer: it finds the optimum in fewer queries than random walks; its state round-trips."""

import numpy as np

from helpers import KNOB_TARGET, knob_landscape
from tensortune.explorers import PPOExplorer
from tensortune.space import Config

TARGET = KNOB_TARGET


def _landscape():
    return knob_landscape()


def test_agent_finds_optimum_in_fewer_queries_than_random_walks():
    sp, score = _landscape()
    opt = Config(tuple(int(t) for t in TARGET))
    ppo, rng = PPOExplorer(seed=0), np.random.default_rng(0)
    ppo_queries, found = 0, False
    incumbents: list[Config] = []
    for _ in range(15):
        out = ppo.propose(sp, score, 64, set(), rng, incumbents=incumbents)
        ppo_queries += ppo.queries
        incumbents = [c for c, _ in out[:16]]
        if any(c == opt for c, _ in out):
            found = True
            break
    assert found, "the agent never reached the optimum"
    # random walks: as many walkers, each knob -1/0/+1 uniformly, same count of model queries
    rng = np.random.default_rng(0)
    pos, walk_queries = sp.random_indices(128, rng), 128
    while walk_queries <= 20 * ppo_queries:
        if (score(pos) == 0).any():
            break
        pos = np.clip(pos + rng.integers(-1, 2, size=pos.shape), 0, 11)
        walk_queries += 128
    assert ppo_queries < walk_queries


def test_agent_state_roundtrip():
    sp, score = _landscape()
    a = PPOExplorer(seed=1, n_walkers=16, max_steps=20)
    a.propose(sp, score, 8, set(), np.random.default_rng(0))
    blob = a.state_bytes()
    b = PPOExplorer(seed=99)
    b.load_state_bytes(blob)
    assert b.state_bytes() == blob and b.rounds == 1
