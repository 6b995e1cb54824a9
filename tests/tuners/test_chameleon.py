"""The Chameleon-family recipes (rl, sa-as, chameleon) end to end, with resume."""

import pytest

from helpers import LandscapeMeasurer, landscape_task
from tensortune.storage import SQLiteStorage
from tensortune.templates import make_task
from tensortune.tuners import Budget, Tuner, create


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
