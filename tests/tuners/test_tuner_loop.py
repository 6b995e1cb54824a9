"""The tuning loop on a non-TVM backend with a known landscape (fast, deterministic)."""

import pytest

from helpers import LandscapeMeasurer, landscape_task
from tensortune.storage import SQLiteStorage
from tensortune.tuners import Budget, Tuner, create


def _run(db, tuner="random", trials=40, seed=0, measurer=None, **kw):
    task = landscape_task()
    m = measurer or LandscapeMeasurer((1, 2, 1, 0, 1))
    strat = create(tuner, task.space, seed, plan_size=16)
    s = Tuner(task, strat, m, SQLiteStorage(db), Budget(trials=trials, early_stopping=kw.pop("early", None)),
              tuner_name=tuner, seed=seed, **kw).run()
    return task, m, s


@pytest.mark.parametrize("tuner", ["random", "autotvm", "grid"])
def test_budget_respected_no_repeats(db_path, tuner):
    task, m, s = _run(db_path, tuner, trials=50, batch_size=8)
    recs = SQLiteStorage(db_path).records(run_id=s.run_id, kind="trial")
    assert s.trials == len(recs) == 50
    assert len({r.config_index for r in recs}) == 50
    assert all(task.space.is_valid(task.space.config(r.config_index)) for r in recs)
    assert len(s.curve) == 50 and s.curve == sorted(s.curve)
    assert SQLiteStorage(db_path).records(run_id=s.run_id, kind="remeasure")


def test_every_batch_committed_before_next_proposal(db_path):
    seen = []

    def cb(ev):
        seen.append(SQLiteStorage(db_path).count(ev.summary.run_id))

    _run(db_path, trials=30, batch_size=7, callbacks=[cb])
    assert seen == [7, 14, 21, 28, 30]


def test_resume_continues_without_repeats(db_path):
    task, _, s1 = _run(db_path, "autotvm", trials=24)
    _, m2, s2 = _run(db_path, "autotvm", trials=48)
    assert s2.resumed == 24 and s2.trials == 48
    measured_again = [inp.config for batch in m2.calls[:-1] for inp in batch]  # last call is the re-measure
    assert len(measured_again) == 24
    recs = SQLiteStorage(db_path).records(run_id=s1.run_id, kind="trial")
    assert len(recs) == 48 and len({r.config_index for r in recs}) == 48
    _, m3, s3 = _run(db_path, "autotvm", trials=48)
    # a finished run resumed measures nothing: it reports the re-measurement the run stored of its incumbent (stop 104)
    assert s3.trials == 48 and sum(len(b) for b in m3.calls) == 0
    again = SQLiteStorage(db_path).records(run_id=s1.run_id, kind="remeasure")
    assert len(again) == 2  # s1's and s2's; none from s3
    assert s3.best_remeasured and s3.best_cost == again[-1].cost == s2.best_cost
    assert s3.best_config == s2.best_config


def test_resumed_finished_run_measures_its_incumbent_when_no_good_remeasure_is_stored(db_path):
    _, _, s1 = _run(db_path, "autotvm", trials=24, remeasure_best=False)
    assert not SQLiteStorage(db_path).records(run_id=s1.run_id, kind="remeasure")
    # nothing stored: the rerun measures the incumbent; that measurement fails (every first knob index fails)
    broken = LandscapeMeasurer((1, 2, 1, 0, 1), fail_first=tuple(range(64)))
    _, m2, s2 = _run(db_path, "autotvm", trials=24, measurer=broken)
    assert s2.resumed == 24 and [len(b) for b in m2.calls] == [1] and not s2.best_remeasured
    assert "re-measuring the best config failed" in s2.stop_reason
    # a failed re-measurement is no figure: the next rerun measures the incumbent again
    _, m3, s3 = _run(db_path, "autotvm", trials=24)
    assert [len(b) for b in m3.calls] == [1] and s3.best_remeasured
    assert [r.ok for r in SQLiteStorage(db_path).records(run_id=s1.run_id, kind="remeasure")] == [False, True]


def test_failures_recorded_and_counted(db_path):
    m = LandscapeMeasurer((1, 2, 1, 0, 1), fail_first=(0, 1))
    task, _, s = _run(db_path, "random", trials=40, measurer=m)
    recs = SQLiteStorage(db_path).records(run_id=s.run_id, kind="trial")
    fails = [r for r in recs if not r.ok]
    assert s.errors == len(fails) > 0
    assert all(r.error.name == "COMPILE_HOST" and r.message == "synthetic failure" for r in fails)


def test_autotvm_beats_random_on_landscape(db_path, tmp_path):
    wins = 0
    for seed in range(3):
        _, _, a = _run(str(tmp_path / f"a{seed}.db"), "autotvm", trials=64, seed=seed)
        _, _, r = _run(str(tmp_path / f"r{seed}.db"), "random", trials=64, seed=seed)
        wins += a.best_cost <= r.best_cost
    assert wins >= 2


def test_early_stopping_and_exhaustion(db_path, tmp_path):
    _, _, s = _run(db_path, "random", trials=400, early=5)
    assert s.trials < 400 and "no improvement" in s.stop_reason
    from helpers import landscape_task as lt

    size = sum(1 for i in range(lt().space.size) if lt().space.is_valid(lt().space.config(i)))
    _, _, g = _run(str(tmp_path / "g.db"), "grid", trials=size + 50, batch_size=64)
    assert g.trials == size and g.stop_reason == "search space exhausted"


def test_budget_validation():
    with pytest.raises(ValueError):
        Budget(trials=0)
    with pytest.raises(ValueError):
        Budget()


def test_measure_guard_admits_each_valid_config_once():
    from tensortune.space import Constraint, OptionKnob, SearchSpace
    from tensortune.tuners.guard import MeasureGuard

    sp = SearchSpace([OptionKnob("a", [0, 1, 2, 3])], [Constraint("no 3", lambda v: v["a"] != 3)])
    cfgs = [sp.config(i) for i in range(sp.size)]
    guard = MeasureGuard(sp, measured=[sp.index_of(cfgs[0])])
    assert guard.admit(cfgs + cfgs, limit=1) == [cfgs[1]]  # 0 measured before, the limit stops at one
    assert guard.admit(cfgs + cfgs) == [cfgs[2]]  # 1 now measured, 3 invalid, duplicates dropped
    assert guard.seen(cfgs[2]) and not guard.seen(cfgs[3])
    assert guard.admit(cfgs) == [] and not guard.exhausted  # the invalid config is never admitted nor counted


class _ProtocolMeasurer(LandscapeMeasurer):
    def __init__(self, repeat: int) -> None:
        super().__init__((1, 2, 1, 0, 1))
        self.repeat = repeat

    def protocol(self) -> dict:
        return {"measurer": "landscape", "repeat": self.repeat}


def test_resume_with_another_protocol_is_refused(db_path):
    from tensortune.storage.sqlite import RunMismatchError

    _run(db_path, trials=8, measurer=_ProtocolMeasurer(5))
    _run(db_path, trials=16, measurer=_ProtocolMeasurer(5))  # same protocol: resumes
    with pytest.raises(RunMismatchError, match=r"another protocol \(repeat: 5 then, 3 now\)"):
        _run(db_path, trials=24, measurer=_ProtocolMeasurer(3))
    recs = SQLiteStorage(db_path).records(kind="trial")
    assert len(recs) == 16 and all(r.extra["fingerprint"]["space"] == landscape_task().space.fingerprint() for r in recs)


def test_resume_on_another_space_is_refused(db_path):
    from dataclasses import replace

    from tensortune.space import OptionKnob, SearchSpace
    from tensortune.storage.sqlite import RunMismatchError

    task, _, s = _run(db_path, trials=8)
    sp = task.space
    knobs = list(sp.knobs)
    knobs[-1] = OptionKnob(knobs[-1].name, list(knobs[-1].options)[::-1])  # same size, options reordered
    other = replace(task, search_space=SearchSpace(knobs, sp.constraints))
    assert other.space.fingerprint() != sp.fingerprint() and other.space.size == sp.size
    with pytest.raises(RunMismatchError, match="another search space"):
        Tuner(other, create("random", other.space, 0), LandscapeMeasurer((1, 2, 1, 0, 1)), SQLiteStorage(db_path),
              Budget(trials=16), tuner_name="random", seed=0).run()


def test_one_process_per_run(db_path):
    from tensortune.storage.sqlite import RunBusyError

    task = landscape_task()
    st = SQLiteStorage(db_path)
    from tensortune.tuners.loop import make_run_id

    held = st.lease(make_run_id(task, "random", 0))  # as another process would (OFD locks exclude in-process too)
    try:
        with pytest.raises(RunBusyError, match="being tuned by another process"):
            _run(db_path, trials=8)
        _run(db_path, trials=8, seed=1)  # another run of the same database goes on
    finally:
        held.release()
    _run(db_path, trials=8)  # released: the run goes on
