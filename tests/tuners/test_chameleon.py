"""Chameleon: PPO adaptive exploration, adaptive sampling with synthesis, and the recipes."""

import numpy as np
import pytest

from helpers import LandscapeMeasurer, landscape_task
from tensortune.explorers import PPOExplorer
from tensortune.samplers.adaptive import AdaptiveSampler, knee_k, mode_config
from tensortune.space import Config, Constraint, OptionKnob, SearchSpace
from tensortune.storage import SQLiteStorage
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create

TARGET = np.array([9, 2, 11, 5, 7, 1])


def _landscape():
    sp = SearchSpace([OptionKnob(f"k{i}", list(range(12))) for i in range(6)])

    def score(idx):
        return -np.sqrt(np.sum((np.asarray(idx) - TARGET) ** 2, axis=1)).astype(float)

    return sp, score


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


@pytest.mark.parametrize("recipe", ["rl", "sa-as", "chameleon"])
def test_recipes_on_landscape_and_resume(db_path, recipe):
    task = landscape_task()

    def run(trials):
        m = LandscapeMeasurer((1, 2, 1, 0, 1))
        strat = create(recipe, task.space, 0, plan_size=16)
        return Tuner(task, strat, m, SQLiteStorage(db_path), Budget(trials=trials), tuner_name=recipe,
                     batch_size=8).run(), strat

    s1, st1 = run(48)
    recs = SQLiteStorage(db_path).records(run_id=s1.run_id, kind="trial")
    assert len(recs) == 48 and len({r.config_index for r in recs}) == 48
    assert s1.search_steps and len(s1.plan_lengths) == len(s1.search_steps)
    if recipe == "rl":
        assert all(n == 16 for n in s1.plan_lengths)  # greedy: a full plan each round
    else:
        assert all(1 <= n <= 64 for n in s1.plan_lengths)
    saved = SQLiteStorage(db_path).load_checkpoint(s1.run_id, "strategy")
    if recipe in ("rl", "chameleon"):
        assert saved is not None
        s2, st2 = run(64)
        assert s2.resumed == 48 and s2.trials == 64
        assert st2.explorer.rounds > st1.explorer.rounds  # continued learning from the saved agent
    else:
        assert saved is None  # SA has nothing learned to save; replay restores it


@pytest.mark.slow
def test_recipes_end_to_end_on_a_real_layer(db_path, small_conv, cpu_target):
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer

    task = make_task(small_conv, "conv2d_nchw.llvm", cpu_target)
    with TvmMeasurer(timing=TimingPolicy(repeat=2, min_repeat_ms=2)) as m:
        for recipe in ("rl", "sa-as", "chameleon"):
            strat = create(recipe, task.space, 0, plan_size=8)
            s = Tuner(task, strat, m, SQLiteStorage(db_path), Budget(trials=20), tuner_name=recipe, batch_size=8).run()
            assert s.trials == 20 and s.errors == 0 and s.best_gflops > 0, recipe
            assert s.best_remeasured and s.plan_lengths, recipe
