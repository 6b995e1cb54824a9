"""Probes of the incumbent (``samplers.probes``) and their place in a model-based strategy's plan."""

from __future__ import annotations

import numpy as np
import pytest

from tensortune.samplers.probes import incumbent_probes
from tensortune.space import Config, Constraint, OptionKnob, SearchSpace


def _space(constraints=()) -> SearchSpace:
    return SearchSpace([OptionKnob("a", list(range(4))), OptionKnob("b", list(range(4))),
                        OptionKnob("c", list(range(4)))], constraints=list(constraints))


def _score(weights):
    w = np.asarray(weights, dtype=float)
    return lambda idx: np.asarray(idx, dtype=float) @ w


def test_each_probe_is_one_knob_away_and_each_knobs_best_scored_alternative() -> None:
    sp = _space()
    inc = Config((1, 1, 1))
    out = incumbent_probes(sp, inc, _score([1.0, 10.0, -1.0]), set(), 8)
    # a: best alternative 3 (score 3+10-1), b: 3 (1+30-1), c: 0 (1+10-0); best-scored first
    assert out == [Config((1, 3, 1)), Config((3, 1, 1)), Config((1, 1, 0))]
    for c in out:
        assert sum(x != y for x, y in zip(c.indices, inc.indices, strict=True)) == 1


def test_probes_skip_measured_and_invalid_configs_and_stop_at_the_limit() -> None:
    sp = _space([Constraint("b is not 3", lambda v: v["b"] != 3)])
    inc = Config((1, 1, 1))
    out = incumbent_probes(sp, inc, _score([1.0, 10.0, -1.0]), {Config((3, 1, 1))}, 8)
    assert Config((1, 3, 1)) not in out  # invalid
    assert Config((3, 1, 1)) not in out  # measured
    assert out == [Config((1, 2, 1)), Config((2, 1, 1)), Config((1, 1, 0))]
    assert incumbent_probes(sp, inc, _score([1.0, 10.0, -1.0]), set(), 1) == [Config((1, 2, 1))]
    assert incumbent_probes(sp, inc, _score([1.0, 10.0, -1.0]), set(), 0) == []
    # a knob with no unmeasured valid alternative gives none
    one = SearchSpace([OptionKnob("a", [0]), OptionKnob("b", [0, 1])])
    assert incumbent_probes(one, Config((0, 0)), _score([1.0, 1.0]), set(), 8) == [Config((0, 1))]


class _Model:
    """A cost model that ranks by a fixed function of the index features (``encode`` is the identity)."""

    def __init__(self, weights):
        self.w = np.asarray(weights, dtype=float)

    def fit(self, x, y) -> None:
        pass

    def predict(self, x):
        return np.asarray(x, dtype=float) @ self.w


def _strategy(probes: int, lead: int):
    from tensortune.explorers.registry import make_explorer
    from tensortune.samplers.greedy import GreedyEpsilon
    from tensortune.strategies.model_based import ModelBasedStrategy

    sp = SearchSpace([OptionKnob(k, list(range(6))) for k in "abc"])
    return ModelBasedStrategy(sp, 0, _Model([1.0, 2.0, 4.0]), make_explorer("sa", 0), GreedyEpsilon(epsilon=0.0),
                              plan_size=6, encode=lambda idx: np.asarray(idx, dtype=float), plan_first=True,
                              probes=probes, probe_lead=lead)


def test_a_plan_holds_the_probes_after_the_models_first_picks_when_the_incumbent_changes() -> None:
    s = _strategy(probes=2, lead=1)
    first = [Config((0, 0, 0)), Config((1, 0, 0))]
    s.tell(first, [1.0, 2.0])  # incumbent (1, 0, 0): the plan is made now
    plan = s.ask(6)
    assert len(plan) == len(set(plan)) == 6 and not set(plan) & set(first)
    # the model's best unmeasured config, then the two best-scored probes of (1, 0, 0): c -> 5 and b -> 5
    assert plan[1:3] == [Config((1, 0, 5)), Config((1, 5, 0))]
    assert plan[0] == Config((5, 5, 5)) and s.rounds[-1].probes == 2
    # the same incumbent after the plan: no probes in the next plan
    s.tell(plan, [0.5] * 6)
    again = s.ask(6)
    assert s.rounds[-1].probes is None
    assert all(sum(x != y for x, y in zip(c.indices, (1, 0, 0), strict=True)) != 1 for c in again[:3])


def test_a_strategy_restored_from_records_probes_as_the_uninterrupted_one_would() -> None:
    """Probes follow from the outcomes alone (the incumbent among the last plan's), so a resumed run, or a
    whole-model run's new strategy per round, probes exactly where one strategy told everything in turn did."""
    first = [Config((0, 0, 0)), Config((1, 0, 0))]
    one = _strategy(probes=2, lead=1)
    one.tell(first, [1.0, 2.0])
    plan = one.ask(6)
    for ys in ([0.5] * 6, [0.5] * 5 + [3.0]):  # the incumbent kept, then a new one in the plan's last config
        cfgs = list(plan)
        one.tell(cfgs, ys)
        plan = one.ask(6)
        xs, told = list(one.xs), list(one.ys)
        fresh = _strategy(probes=2, lead=1)
        fresh.tell(xs, told)
        again = fresh.ask(6)  # the model's picks come from a walk of its own (another random state)
        n = one.rounds[-1].probes or 0
        assert fresh.rounds[-1].probes == one.rounds[-1].probes and again[1:1 + n] == plan[1:1 + n]
    assert one.rounds[-1].probes == 2 and one.rounds[-2].probes is None


def test_without_probes_the_plan_is_the_samplers() -> None:
    s = _strategy(probes=0, lead=0)
    s.tell([Config((0, 0, 0)), Config((1, 0, 0))], [1.0, 2.0])
    plan = s.ask(6)
    assert s.rounds[-1].probes is None
    assert plan[0] == Config((5, 5, 5)) and Config((1, 0, 5)) not in plan[:2]
    with pytest.raises(ValueError, match="probe"):
        _strategy(probes=-1, lead=0)
