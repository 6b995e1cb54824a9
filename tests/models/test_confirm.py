"""Confirming a task's top configs before the build: a lucky single measurement no longer wins."""

from __future__ import annotations

import numpy as np
import pytest

from helpers import LandscapeMeasurer, landscape_task
from tensortune.core.values import MeasureInput, MeasureResult
from tensortune.models.confirm import confirm_task
from tensortune.storage import SQLiteStorage
from tensortune.tuners.loop import measure_record, run_fingerprint


class Lucky(LandscapeMeasurer):
    """The landscape's cost, but the first measurement of each config in ``lucky`` (index: cost) is the
    given cost (a fast moment of the machine); every later one is the true cost with +-2% alternating noise."""

    def __init__(self, optimum: tuple[int, ...], lucky: dict[int, float]) -> None:
        super().__init__(optimum)
        self.lucky = lucky
        self.seen: set[int] = set()
        self.n = 0

    def measure(self, inputs):
        self.calls.append(list(inputs))
        out = []
        for inp in inputs:
            i = inp.task.space.index_of(inp.config)
            c = self.cost(inp.config.indices)
            if i in self.lucky and i not in self.seen:
                c = self.lucky[i]
            else:
                self.n += 1
                c *= 1.02 if self.n % 2 else 0.98
            self.seen.add(i)
            out.append(MeasureResult(costs=(c, c, c)))
        return out


def _trials(task, storage, measurer, configs, run_id="r") -> None:
    results = measurer.measure([MeasureInput(task, c) for c in configs])
    storage.add([measure_record(task, c, r, tuner="autotvm", run_id=run_id, seed=0, protocol={},
                                fingerprint=run_fingerprint(task, {})) for c, r in zip(configs, results, strict=True)])


def test_a_lucky_measurement_loses_to_the_truly_fastest_config(tmp_path) -> None:
    task = landscape_task()
    sp = task.space
    rng = np.random.default_rng(0)
    configs = sp.sample(12, rng)
    optimum = tuple(int(x) for x in configs[0].indices)  # configs[0] is the true optimum among them
    truth = LandscapeMeasurer(optimum)
    by_cost = sorted(configs, key=lambda c: truth.cost(c.indices))
    assert by_cost[0] is configs[0]
    # the third-best config had a lucky trial that made it look best
    lucky_cfg = by_cost[2]
    assert truth.cost(lucky_cfg.indices) > 1.1 * truth.cost(by_cost[0].indices)
    m = Lucky(optimum, {sp.index_of(lucky_cfg): 0.9 * truth.cost(by_cost[0].indices)})
    st = SQLiteStorage(str(tmp_path / "c.db"))
    _trials(task, st, m, configs)
    assert st.best(task.key, task.target_json, k=1, run_id="r")[0].config_index == sp.index_of(lucky_cfg)

    m.calls.clear()
    got = confirm_task(task, "r", measurer=m, storage=st, tuner="autotvm", seed=0, top=3, rounds=3)
    assert got is not None
    n, changed = got
    assert changed
    best = st.best(task.key, task.target_json, k=3, run_id="r")
    assert best[0].config_index == sp.index_of(by_cost[0])  # the truly fastest
    assert best[0].kind == "remeasure" and best[0].cost == pytest.approx(truth.cost(by_cost[0].indices), rel=0.03)
    lucky_now = next(r for r in st.records(task.key, task.target_json, "r", kind="remeasure")
                     if r.config_index == sp.index_of(lucky_cfg))
    assert lucky_now.cost == pytest.approx(truth.cost(lucky_cfg.indices), rel=0.03)  # its honest figure
    assert len(lucky_now.costs) == 9  # 3 rounds x 3 repeats pooled into one record
    # rounds are interleaved: each round measures the top configs one after the other, in a rotated order
    assert n == 3 * len(m.calls) and all(len(c) == 3 for c in m.calls)
    orders = [tuple(sp.index_of(i.config) for i in c) for c in m.calls[:3]]
    assert len(set(orders)) == 3 and len({frozenset(o) for o in orders}) == 1
    # a trial is still a trial: the budget counts the same records as before
    assert len(st.records(task.key, task.target_json, "r", kind="trial")) == 12

    # resumed: its top configs are confirmed already, nothing is measured again
    m.calls.clear()
    assert confirm_task(task, "r", measurer=m, storage=st, tuner="autotvm", seed=0, top=3, rounds=3) is None
    assert m.calls == []


def test_a_task_with_one_good_config_is_left_alone(tmp_path) -> None:
    task = landscape_task()
    st = SQLiteStorage(str(tmp_path / "c.db"))
    m = LandscapeMeasurer((0,) * len(task.space.knobs))
    _trials(task, st, m, task.space.sample(1, np.random.default_rng(1)))
    m.calls.clear()
    assert confirm_task(task, "r", measurer=m, storage=st, tuner="autotvm", seed=0) is None
    assert m.calls == []
    with pytest.raises(ValueError, match="at least 2 configs"):
        confirm_task(task, "r", measurer=m, storage=st, tuner="autotvm", seed=0, top=1)
