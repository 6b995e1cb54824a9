"""ARCO's confidence sampling."""


import numpy as np

from tensortune.samplers.confidence import ConfidenceSampler
from tensortune.space import Config, OptionKnob, SearchSpace

VTA = {"kind": "vta-sim"}


def test_confidence_sampling_keeps_high_value_configs_and_synthesises_the_rest():
    sp = SearchSpace([OptionKnob("a", list(range(10))), OptionKnob("b", list(range(10)))])
    cands = [Config((i, j)) for i in range(10) for j in range(10)]

    def value(space, idx):
        return (idx[:, 0] + idx[:, 1]).astype(float)  # high on the diagonal's far corner

    s = ConfidenceSampler(value)
    out = s.select([(c, 0.0) for c in cands], 20, sp, set(), np.random.default_rng(0))
    med = np.median([c.indices[0] + c.indices[1] for c in cands])
    kept = out[: s.last_kept]
    assert kept and all(c.indices[0] + c.indices[1] > med for c in kept)
    assert len(out) <= 20 and len(set(out)) == len(out)
    assert s.last_kept + s.last_synthesized == len(out)
