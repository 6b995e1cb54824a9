import math

import numpy as np
import pytest

from tensortune.space import Config, Constraint, IntKnob, OptionKnob, SearchSpace, SplitKnob
from tensortune.space.knobs import enumerate_splits


def test_split_products_and_count():
    opts = enumerate_splits(12, 3)
    assert all(math.prod(o) == 12 for o in opts)
    assert len(opts) == len(set(opts)) == 18  # ordered factorisations of 2^2*3 into 3 parts: C(4,2)*C(3,2)
    assert enumerate_splits(8, 2) == [(8, 1), (4, 2), (2, 4), (1, 8)]


def test_split_power2_and_max_factor():
    opts = enumerate_splits(24, 2, power2=True)
    assert {o[1] for o in opts} == {1, 2, 4, 8}
    opts = enumerate_splits(64, 3, max_factor=4)
    assert all(max(o[1:]) <= 4 for o in opts) and all(math.prod(o) == 64 for o in opts)
    with pytest.raises(ValueError):
        enumerate_splits(0, 2)


def _space(constraints=()):
    return SearchSpace([SplitKnob("tile", 16, 2), OptionKnob("unroll", [0, 16, 64]), IntKnob("n", 1, 5, 2)], constraints)


def test_size_and_mixed_radix_roundtrip():
    sp = _space()
    assert sp.size == 5 * 3 * 3
    seen = set()
    for i in range(sp.size):
        c = sp.config(i)
        assert sp.index_of(c) == i
        seen.add(c)
    assert len(seen) == sp.size
    assert sp.config(1) == Config((1, 0, 0))  # first knob is the least significant digit
    with pytest.raises(IndexError):
        sp.config(sp.size)


def test_values_json_roundtrip_and_errors():
    sp = _space()
    c = sp.config(17)
    assert sp.from_json(sp.to_json(c)) == c
    assert sp.values(c)["tile"] in enumerate_splits(16, 2)
    with pytest.raises(ValueError):
        sp.from_json({"tile": [16, 1], "unroll": 7, "n": 1})
    with pytest.raises(ValueError):
        sp.from_json({"tile": [16, 1]})


def test_sampling_distinct_valid_and_excluding():
    cons = [Constraint("no unroll 64", lambda v: v["unroll"] != 64)]
    sp = _space(cons)
    rng = np.random.default_rng(0)
    got = sp.sample(20, rng)
    assert len(got) == len(set(got)) == 20
    assert all(sp.values(c)["unroll"] != 64 for c in got)
    rest = sp.sample(100, rng, exclude=got)
    assert not set(rest) & set(got)
    assert len(rest) == 30 - 20  # 5 * 2 * 3 valid configs in all


def test_neighbors_one_knob_one_step():
    sp = _space()
    c = Config((2, 1, 1))
    nb = sp.neighbors(c)
    assert len(nb) == 6
    for n in nb:
        diff = [abs(a - b) for a, b in zip(n.indices, c.indices, strict=True)]
        assert sorted(diff) == [0, 0, 1]
    corner = sp.neighbors(Config((0, 0, 0)))
    assert len(corner) == 3


def test_random_step_moves_exactly_one_knob():
    sp = _space()
    rng = np.random.default_rng(1)
    idx = sp.random_indices(200, rng)
    new = sp.random_step(idx, rng)
    changed = (new != idx).sum(axis=1)
    assert np.all(changed == 1)
    assert np.all(np.abs(new - idx).sum(axis=1) == 1)
    assert np.all((new >= 0) & (new < sp.radices))


def test_encode_features():
    sp = _space()
    x = sp.encode([sp.config(0), sp.config(7)])
    assert x.shape == (2, 2 + 1 + 1) == (2, sp.n_features)
    assert list(x[0]) == [16.0, 1.0, 0.0, 1.0]


def test_knob_metadata_and_groups():
    sp = SearchSpace([SplitKnob("tile_b", 8, 2, hardware=True, group="hw"), OptionKnob("u", [0, 1])])
    assert sp.knob("tile_b").hardware and not sp.knob("u").hardware
    assert sp.groups() == {"hw": ["tile_b"], "option": ["u"]}
    with pytest.raises(ValueError):
        SearchSpace([OptionKnob("a", [1]), OptionKnob("a", [2])])
