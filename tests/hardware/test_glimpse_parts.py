"""Glimpse's validity vote and prior generator (issue 17, items 2 and 4), on the VTA family."""

from __future__ import annotations

import numpy as np
import pytest

from tensortune.cost_models.validity_vote import ThresholdVote, best_threshold, magnitude


def test_magnitudes_and_thresholds() -> None:
    assert magnitude(8) == 8.0 and magnitude((4, 2, 8)) == 16.0 and magnitude("x") == 1.0
    m = np.array([0, 1, 2, 3, 4, 5.0])
    assert best_threshold(m, m <= 3) == 3.0  # separates exactly
    assert best_threshold(m, np.ones(6, bool)) == 5.0  # nothing invalid: rejects nothing
    # mostly invalid: balanced accuracy keeps the valid ones instead of rejecting everything
    m2 = np.array([0, 0, 1, 2, 3, 4, 5, 6, 7, 8.0])
    assert best_threshold(m2, m2 <= 0) == 0.0


def test_vote_learns_a_threshold_that_moves_with_the_hardware() -> None:
    """Synthetic family: knob a is valid up to log2 = buffer size (the context), knob b never matters.
    Trained on buffers 2..6, the vote on an unseen buffer of 4.5 rejects a > 4.5, and a config is
    rejected only when more than a third of the knobs vote so (here: a, or both)."""
    rng = np.random.default_rng(0)
    ctxs, mags, valid = [], [], []
    for buf in (2, 3, 4, 5, 6):
        m = rng.uniform(0, 8, size=(2000, 2))
        ctxs.append(np.array([buf], float))
        mags.append(m)
        valid.append(m[:, 0] <= buf)
    vote = ThresholdVote.fit(["a", "b"], ctxs, mags, valid, ridge=1e-6)
    t = vote.thresholds(np.array([4.5]))
    assert abs(t[0] - 4.5) < 0.3 and t[1] > 7.5, t
    test = np.array([[4.0, 7.9], [5.5, 0.0]])
    assert vote.predict(np.array([4.5]), test).tolist() == [True, False]
    again = ThresholdVote.from_json(vote.to_json())
    assert np.allclose(again.thresholds(np.array([4.5])), t)
    with pytest.raises(ValueError, match="tau"):
        ThresholdVote.fit(["a"], ctxs, [m[:, :1] for m in mags], valid, tau=1.0)


def test_prior_generator_puts_held_out_samples_where_the_training_best_were() -> None:
    """On held-out VTA designs the prior's first configs are valid configs of the space, ordered by the
    product of knob probabilities, and better than random ones on average."""
    from tensortune.bench.glimpse_vta import make_pair, run, summary
    from tensortune.hardware.blueprint import Blueprint
    from tensortune.hardware.specs import vta_specs
    from tensortune.samplers.glimpse_prior import PriorGenerator
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.workloads.layer_tables import model_tasks

    res = run([0], designs=10, train=8, n=50)
    s = dict(summary(res))
    assert s["glimpse prior mean"] > s["random mean"]
    assert 0 <= s["invalid after vote"] <= 1 and 0 < s["valid kept"] <= 1
    # the initial samples themselves: valid in the space, no duplicates, most probable first
    family = vta_specs(DEFAULT_HW_OPTIONS)
    specs = [family[i] for i in (0, 100, 2000, 4000)]
    emb = Blueprint.fit(family, 6).embed(specs)
    name, conv = model_tasks("resnet18")[3]
    pairs = [make_pair(sp, name, conv, e) for sp, e in zip(specs, emb, strict=True)]
    from tensortune.cost_models.validity_vote import magnitudes

    prior = PriorGenerator.fit([k.name for k in pairs[0].space.knobs], [p.context for p in pairs[:3]],
                               [magnitudes(p.space, p.idx[np.argsort(p.cycles)[:10]]) for p in pairs[:3]], epochs=50)
    rows = prior.initial_indices(pairs[3].context, pairs[3].space, 20)
    assert len(rows) == 20 and pairs[3].space.valid_mask(rows).all() and len({tuple(r) for r in rows}) == 20
    logp = prior.option_log_probs(pairs[3].context, pairs[3].space)
    score = [sum(lp[i] for lp, i in zip(logp, r, strict=True)) for r in rows]
    assert all(a >= b - 1e-9 for a, b in zip(score, score[1:], strict=False))
    again = PriorGenerator.from_json(prior.to_json())
    assert np.array_equal(again.initial_indices(pairs[3].context, pairs[3].space, 20), rows)


def test_trained_glimpse_gives_a_held_out_design_its_first_plan_and_filter(tmp_path, capsys) -> None:
    """glimpse-train stores the parts with what they were trained on (the held-out design excluded);
    tune --glimpse on that design measures the prior's configs first, through the vote, and stores them."""
    import json
    import sqlite3

    from tensortune.cli.main import main
    from tensortune.hardware.specs import vta_specs
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.transfer.glimpse import GlimpseModels

    held = vta_specs(DEFAULT_HW_OPTIONS)[1234]
    out = tmp_path / "g.json"
    # no acquisition function (--af-iterations 0): this test is about the prior and the vote, which `tune --glimpse`
    # uses; the acquisition is trained and checked in test_glimpse_acquisition.py (its 30 PPO iterations took most of
    # this test's 536 s on a 2-vCPU Zen 3 VM)
    assert main(["glimpse-train", "--family", "vta", "--designs", "12", "--exclude", held.name, "--af-iterations", "0",
                 "--out", str(out)]) == 0
    models = GlimpseModels.load(str(out))
    assert held.name not in models.trained_on["designs"] and models.trained_on["excluded"] == [held.name]
    assert len(models.trained_on["designs"]) == 12 and models.trained_on["pairs"] > 0
    target = {"kind": "vta-sim", "hw": {k: int(v) for k, v in held.target["hw"].items()}}
    db = tmp_path / "t.db"
    args = ["tune", "--target", json.dumps(target), "--layer", "resnet18:6", "--tuner", "autotvm", "--trials", "16",
            "--plan-size", "16", "--db", str(db), "--no-progress"]
    assert main([*args, "--glimpse", str(out)]) == 0
    assert "first configs from the prior" in capsys.readouterr().out
    # the first configs measured are the prior's, in its order
    from tensortune.templates import make_task
    from tensortune.workloads.layer_tables import resolve_layer

    _, conv = resolve_layer("resnet18:6")
    task = make_task(conv, "conv2d_nchw.vta-sim", target, "resnet18:6")
    plan = models.for_task(task.space, conv, target, 16).first_plan
    with sqlite3.connect(db) as con:
        measured = [json.loads(r[0]) for r in con.execute("select config from records where kind='trial' order by id")]
    assert measured[: len(plan)] == [task.space.to_json(c) for c in plan]
    # bad input: a missing file, a recipe that does not plan, a family without a trainer
    assert main([*args, "--glimpse", str(tmp_path / "none.json")]) == 2
    assert main([*args, "--tuner", "random", "--glimpse", str(out)]) == 2
    assert main(["glimpse-train", "--family", "cpu", "--out", str(tmp_path / "c.json")]) == 2
    assert main(["glimpse-train", "--family", "vta", "--exclude", "vta-nonsense", "--out", str(tmp_path / "c.json")]) == 2
