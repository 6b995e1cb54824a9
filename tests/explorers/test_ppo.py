"""Chameleon's PPO explorer: the batched walker core (the pre-issue-20 settings) finds the optimum in fewer
queries than random walks; the published agent learns that walks pay; its state round-trips."""

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
    ppo = PPOExplorer(seed=0, per_walker=False, per_knob_ratio=False, reward="standardised", walk_validity=True,
                      incumbent_share=0.5)
    rng = np.random.default_rng(0)
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


def test_published_agent_learns_from_raw_rewards():
    """Raw predictions are the rewards: on a landscape of positive scores a longer walk collects more, so
    the agent learns to keep walking (and its proposals get better than its first round's)."""
    sp, score0 = _landscape()

    def score(idx):
        return 20.0 + score0(idx)

    ppo, rng = PPOExplorer(seed=0, n_walkers=32), np.random.default_rng(0)
    means = [np.mean([s for _, s in ppo.propose(sp, score, 32, set(), rng)]) for _ in range(6)]
    assert ppo.rounds == 6 and len(ppo.walk_lengths) == 6
    assert np.mean(ppo.walk_lengths[-2:]) > ppo.walk_lengths[0]
    assert max(means[1:]) > means[0]


def test_agent_state_roundtrip():
    sp, score = _landscape()
    a = PPOExplorer(seed=1, n_walkers=16, max_steps=20)
    a.propose(sp, score, 8, set(), np.random.default_rng(0))
    blob = a.state_bytes()
    b = PPOExplorer(seed=99)
    b.load_state_bytes(blob)
    assert b.state_bytes() == blob and b.rounds == 1
