"""Glimpse's meta-learned acquisition function and the ``glimpse`` recipe (issue 17, items 3 and 5)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest


def test_state_columns_and_bad_input() -> None:
    from tensortune.samplers.neural_acquisition import BASE_COLUMNS, acquisition_state

    mu, sigma = np.array([0.2, 0.9, 1.3]), np.array([0.1, 0.0, 0.2])
    s = acquisition_state(mu, sigma, 1.0, 24, 96, np.array([0.5, -1.0]))
    assert s.shape == (3, len(BASE_COLUMNS) + 2)
    col = {c: s[:, i] for i, c in enumerate(BASE_COLUMNS)}
    assert np.allclose(col["mu"], mu) and np.allclose(col["sigma"], sigma)
    assert np.allclose(col["z_improvement"], [-5.0, -5.0, 1.5])  # clipped; a zero sigma does not divide by 0
    assert col["mu_rank"].tolist() == [0.0, 0.5, 1.0] and np.allclose(col["step_fraction"], 0.25)
    assert np.allclose(s[:, -2:], [0.5, -1.0])
    with pytest.raises(ValueError, match="budget"):
        acquisition_state(mu, sigma, 1.0, 0, 0, np.zeros(2))
    with pytest.raises(ValueError, match="one length"):
        acquisition_state(mu, sigma[:2], 1.0, 0, 8, np.zeros(2))


def test_plan_probabilities_are_a_distribution_and_greedy_takes_the_highest() -> None:
    import torch

    from tensortune.samplers.neural_acquisition import NeuralAcquisition, plackett_luce_log_prob

    logits = torch.tensor([0.3, -1.0, 2.0, 0.5])
    total = sum(math.exp(float(plackett_luce_log_prob(logits, torch.tensor(p))))
                for p in itertools.permutations(range(4), 2))
    assert abs(total - 1.0) < 1e-5  # every ordered pair of picks: probabilities sum to one
    af = NeuralAcquisition.new(blueprint_dim=3, seed=0)
    states = np.random.default_rng(0).normal(size=(40, af.n_in))
    picks, lp = af.choose(states, 5)
    assert picks.tolist() == np.argsort(-af.logits(states))[:5].tolist() and lp < 0
    # sampled plans: no repeats, and the first pick follows the softmax
    rng = np.random.default_rng(1)
    firsts = np.bincount([af.choose(states[:4], 2, rng)[0][0] for _ in range(4000)], minlength=4) / 4000
    p = np.exp(af.logits(states[:4]))
    assert np.allclose(firsts, p / p.sum(), atol=0.03)
    again = NeuralAcquisition.from_json(af.to_json())
    assert np.allclose(again.logits(states), af.logits(states))
    with pytest.raises(ValueError, match="states must be"):
        af.logits(states[:, :3])


def test_the_untrained_policy_is_greedy_by_mean_and_old_files_are_refused() -> None:
    """Before any training the network's plan is AutoTVM's (the highest predicted means); sampling in
    training prefers higher means but is not greedy."""
    from tensortune.samplers.neural_acquisition import NeuralAcquisition, acquisition_state

    rng = np.random.default_rng(4)
    af = NeuralAcquisition.new(blueprint_dim=2, seed=3)
    mu, sigma = rng.random(64), rng.random(64) * 0.2
    s = acquisition_state(mu, sigma, 1.0, 10, 96, np.array([0.3, -0.7]))
    assert af.choose(s, 8)[0].tolist() == np.argsort(-mu)[:8].tolist()
    drawn = [af.choose(s, 8, rng)[0] for _ in range(200)]
    ranks = np.argsort(np.argsort(-mu))
    assert np.mean([ranks[d].mean() for d in drawn]) < 16 and any(sorted(d.tolist()) != sorted(np.argsort(-mu)[:8].tolist())
                                                                  for d in drawn)
    old = af.to_json()
    del old["form"]
    with pytest.raises(ValueError, match="retrain"):
        NeuralAcquisition.from_json(old)


def _bandit_state(rng: np.random.Generator, n_in: int) -> np.ndarray:
    from tensortune.samplers.neural_acquisition import BASE_COLUMNS

    s = rng.normal(size=(12, n_in))
    s[:, BASE_COLUMNS.index("mu_rank")] = 0.0
    return s


def test_ppo_learns_which_candidate_pays() -> None:
    """A synthetic bandit: of 12 candidates the one with the highest ``mu`` column pays 1, the others 0.
    PPO updates of an untrained network make its greedy pick the paying one far more often. The
    ``mu_rank`` column is zero here: with random noise in it, the policy's greedy skip (gain x mu_rank)
    drowned the signal and 30 updates reached 0.34-0.59 depending on the CPU's float paths (0.59 on a
    znver5 machine, a fail); with it zero, 0.80-0.94 over five seeds there."""
    from tensortune.samplers.neural_acquisition import Decision, NeuralAcquisition, PPOTrainer, advantages

    # the advantage: return-to-go minus the group's mean at that step, normalised over the batch
    ds = [[Decision(np.zeros((1, 1)), np.array([0]), 0.0, r)] for r in (1.0, 0.0, 0.0, 1.0)]
    adv = [a for _, a in advantages([ds])]
    assert np.allclose(adv, [1, -1, -1, 1])

    rng = np.random.default_rng(0)
    af = NeuralAcquisition.new(blueprint_dim=2, seed=1)

    def accuracy() -> float:
        hits = 0
        for _ in range(200):
            s = _bandit_state(rng, af.n_in)
            hits += int(af.choose(s, 1)[0][0] == int(np.argmax(s[:, 0])))
        return hits / 200

    before = accuracy()
    trainer = PPOTrainer(af, lr=1e-2)
    for _ in range(30):
        groups = []
        for _ in range(8):
            eps = []
            for _ in range(4):
                s = _bandit_state(rng, af.n_in)
                picks, lp = af.choose(s, 1, rng)
                eps.append([Decision(s, picks, lp, float(picks[0] == int(np.argmax(s[:, 0]))))])
            groups.append(eps)
        trainer.update(groups)
    after = accuracy()
    assert after > max(0.6, before + 0.3), (before, after)


def test_an_acquisition_function_trains_on_vta_pairs_and_is_stored_with_the_models(tmp_path) -> None:
    from tensortune.hardware.specs import vta_specs
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.transfer.glimpse import GlimpseModels, train_vta

    family = vta_specs(DEFAULT_HW_OPTIONS)
    chosen = [family[i] for i in np.random.default_rng(3).choice(len(family), 4, replace=False)]
    models = train_vta(chosen=chosen, seed=0, af_iterations=2)
    meta = models.trained_on["acquisition"]
    assert meta["iterations"] == 2 and 0 < meta["last"]["auc"] <= meta["last"]["final_quality"] <= 1
    models.save(str(tmp_path / "g.json"))
    again = GlimpseModels.load(str(tmp_path / "g.json"))
    states = np.random.default_rng(0).normal(size=(9, again.acquisition.n_in))
    assert np.allclose(again.acquisition.logits(states), models.acquisition.logits(states))
    assert train_vta(chosen=chosen, seed=0, af_iterations=0).acquisition is None


@pytest.fixture(scope="module")
def held_out(tmp_path_factory):
    """Glimpse trained on 12 VTA designs, and a 13th design held out (one whose layer 6 has valid configs)."""
    from tensortune.bench.glimpse_vta import make_pair
    from tensortune.hardware.blueprint import Blueprint
    from tensortune.hardware.specs import vta_specs
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.transfer.glimpse import train_vta
    from tensortune.workloads import resolve_layer

    family = vta_specs(DEFAULT_HW_OPTIONS)
    rng = np.random.default_rng(5)
    order = rng.permutation(len(family))
    name, conv = resolve_layer("resnet18:6")
    bp = Blueprint.fit(family, 6)
    test = next(family[i] for i in order[12:] if make_pair(family[i], name, conv, bp.embed([family[i]])[0]).valid.any())
    models = train_vta(chosen=[family[i] for i in order[:12]], seed=0, af_iterations=4)
    path = tmp_path_factory.mktemp("glimpse") / "vta.json"
    models.save(str(path))
    return test, str(path)


def test_the_glimpse_recipe_measures_the_prior_first_then_plans_the_acquisition_picks(held_out) -> None:
    from tensortune.core.values import MeasureInput
    from tensortune.measure.vta_measurer import VtaSimMeasurer
    from tensortune.storage import SQLiteStorage
    from tensortune.templates import make_task
    from tensortune.transfer.glimpse import GlimpseModels
    from tensortune.tuners import Budget, Tuner, create
    from tensortune.workloads import resolve_layer

    spec, path = held_out
    models = GlimpseModels.load(path)
    assert models.acquisition is not None
    name, conv = resolve_layer("resnet18:6")
    task = make_task(conv, "conv2d_nchw.vta-sim", dict(spec.target), name)
    tg = models.for_task(task.space, conv, task.target, 8)
    with pytest.raises(ValueError, match="budget"):
        create("glimpse", task.space, 0, glimpse=tg)
    with pytest.raises(ValueError, match="acquisition function"):
        create("glimpse", task.space, 0, budget=64)
    with pytest.raises(ValueError, match="acquisition must be"):
        create("glimpse", task.space, 0, glimpse=tg, budget=64, acquisition="ucb")
    by_mean = create("glimpse", task.space, 0, glimpse=tg, budget=64, acquisition="mean")
    assert by_mean.by_mean and by_mean.plan_size == 8  # the ablation: same loop, plan by the ensemble's mean
    strat = create("glimpse", task.space, 0, glimpse=tg, budget=64)
    s = Tuner(task, strat, VtaSimMeasurer(), SQLiteStorage(":memory:"), Budget(trials=64), tuner_name="glimpse",
              batch_size=8, remeasure_best=False).run()
    assert s.trials == 64
    assert strat.xs[: len(tg.first_plan)] == tg.first_plan  # the prior's configs come first
    later = strat.rounds[-1]
    assert later.plan == 8 and later.candidates > 8  # the network chose 8 of more candidates
    sim = VtaSimMeasurer()
    assert all(r.ok for r in sim.measure([MeasureInput(task, c) for c in tg.first_plan[:1]]))


def test_cli_glimpse_recipe_and_its_errors(held_out, tmp_path, capsys) -> None:
    import json

    from tensortune.cli.main import main

    spec, path = held_out
    target = json.dumps(spec.target)
    db = str(tmp_path / "g.db")
    base = ["tune", "--target", target, "--layer", "resnet18:6", "--no-progress", "--db", db]
    assert main([*base, "--tuner", "glimpse", "--trials", "24", "--glimpse", path]) == 0
    out = capsys.readouterr().out
    assert "glimpse: 8 first configs from the prior" in out and "24 measurements" in out
    assert main([*base, "--tuner", "glimpse", "--trials", "8", "--glimpse", str(tmp_path / "none.json")]) == 2
    assert "glimpse-train --family vta" in capsys.readouterr().err
    assert main(["tune", "--layer", "L8", "--target", "cuda", "--tuner", "glimpse", "--trials", "8", "--db", db]) == 2
    assert "'cuda' has no trainer" in capsys.readouterr().err
    assert main(["tune", "--layer", "L8", "--tuner", "glimpse", "--trials", "8", "--db", db,
                 "--glimpse", str(tmp_path / "none.json")]) == 2
    assert "glimpse-train --family cpu --tables DIR --measure" in capsys.readouterr().err
    assert main(["glimpse-train", "--family", "vta", "--designs", "3", "--af-iterations", "0", "--no-progress",
                 "--out", str(tmp_path / "noaf.json")]) == 0
    assert main([*base, "--tuner", "glimpse", "--trials", "8", "--glimpse", str(tmp_path / "noaf.json")]) == 2
    assert "no acquisition function" in capsys.readouterr().err
    assert main(["bench", "glimpse", "--tuning", "--recipes", "autotvm,ucb"]) == 2
    assert "ucb" in capsys.readouterr().err
    # beside other tuners in one comparison
    assert main(["compare", "--target", target, "--layer", "resnet18:6", "--tuners", "autotvm,glimpse", "--trials",
                 "16", "--seeds", "0", "--no-progress", "--glimpse", path, "--db", db, "--out", str(tmp_path / "cmp")]) == 0
    (report,) = (tmp_path / "cmp").glob("compare-*.json")
    assert set(json.loads(report.read_text())["runs"]) == {"autotvm", "glimpse"}


def test_an_interrupted_acquisition_training_resumes_to_the_same_network(tmp_path) -> None:
    """`glimpse-train` checkpoints the acquisition function after every PPO iteration: killed after the
    second of three, a rerun does only the third and ends with the weights of an uninterrupted run."""
    from tensortune.hardware.specs import vta_specs
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.transfer.glimpse import train_vta

    family = vta_specs(DEFAULT_HW_OPTIONS)
    chosen = [family[i] for i in np.random.default_rng(4).choice(len(family), 3, replace=False)]
    whole = train_vta(chosen=chosen, seed=1, af_iterations=3)
    ck = str(tmp_path / "af.partial")

    class Killed(Exception):
        pass

    def kill_at_third(msg: str) -> None:
        if "iteration 3/3" in msg:
            raise Killed

    with pytest.raises(Killed):
        train_vta(chosen=chosen, seed=1, af_iterations=3, checkpoint=ck, progress=kill_at_third)
    seen: list[str] = []
    resumed = train_vta(chosen=chosen, seed=1, af_iterations=3, checkpoint=ck, progress=seen.append)
    assert any("resumed after iteration 2 of 3" in m for m in seen), seen
    assert sum("acquisition iteration" in m for m in seen) == 1  # only the third ran again
    states = np.random.default_rng(0).normal(size=(16, whole.acquisition.n_in))
    assert np.allclose(resumed.acquisition.logits(states), whole.acquisition.logits(states), atol=1e-6)
    assert resumed.trained_on["acquisition"]["last"] == whole.trained_on["acquisition"]["last"]


def test_bench_glimpse_tuning_writes_its_table_and_command(tmp_path, monkeypatch) -> None:
    """A small held-out-design run through the CLI: the report names the command and has one row per recipe."""
    import json

    from tensortune.cli.main import main

    argv = ["bench", "glimpse", "--tuning", "--seeds", "0", "--designs", "4", "--train", "3", "--layers", "1",
            "--trials", "8", "--af-iterations", "1", "--recipes", "autotvm,glimpse", "--out", str(tmp_path)]
    monkeypatch.setattr("sys.argv", ["/venv/bin/tensortune", *argv])
    assert main(argv) == 0
    md = (tmp_path / "tuning.md").read_text()
    assert f"Command: `tensortune {' '.join(argv)}`" in md
    rows = [line.split(" | ")[0].lstrip("| ") for line in md.splitlines() if line.startswith("| ") and "---" not in line]
    assert rows == ["recipe", "autotvm", "glimpse"]
    runs = json.loads((tmp_path / "tuning.json").read_text())
    assert {r["recipe"] for r in runs["runs"]} == {"autotvm", "glimpse"}
