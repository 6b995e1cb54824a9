"""Glimpse's trained parts as one artifact, and what they give a tuning run (issue 17, items 2, 4, 5).

``train_vta`` evaluates the software spaces of designs of the VTA co-design grid on every ResNet-18 conv
layer with the analytical model (cycles and validity of every config: the "measurements" of this family
cost microseconds, so training data is recomputed rather than stored and a rerun is the resume), fits the
Blueprint of the whole family, the prior generator on each pair's best configs and the validity vote on
sampled configs, and writes them with what they were trained on (designs, layers, command) to one JSON
file. ``GlimpseModels.for_task`` turns them into a first plan (the prior's most probable configs that the
vote lets through) and a validity filter for one task; any model-based recipe takes them
(``create(..., glimpse=...)``, ``tensortune tune --glimpse FILE``).

``train_acquisition`` meta-learns Glimpse's neural acquisition function (item 3) as MetaBO does: episodes
of the ``glimpse`` recipe's own loop (prior's first plan, bootstrap-ensemble surrogate, candidates through
the vote, the network picks each plan) on training (design, layer) pairs, trained with PPO; the reward of
a step is the best quality found so far (optimum / best cycles), so the return is the area under the
tuning curve and a policy that reaches good configs sooner earns more. The ``glimpse`` recipe
(``strategies/glimpse.py``) uses it.

``train_cpu`` does the same for the CPU family (``hardware.specs.cpu_specs``: an ISA level and a core
count per target) from ground-truth tables measured on this machine for each target it can run
(``tensortune groundtruth --target ... --out DIR/<mcpu>-x<cores>``; ``glimpse-train --family cpu
--tables DIR --measure`` measures the missing ones, resumably): every config of a layer's reduced
space, so a training pair's optimum is known as it is for VTA designs.
"""

from __future__ import annotations

import json
import os
import time
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.cost_models.validity_vote import ThresholdVote, magnitudes
from tensortune.hardware.blueprint import Blueprint
from tensortune.hardware.specs import HardwareSpec, vta_specs
from tensortune.samplers.glimpse_prior import PriorGenerator
from tensortune.samplers.neural_acquisition import (
    BASE_COLUMNS,
    Decision,
    NeuralAcquisition,
    PPOTrainer,
    acquisition_state,
)
from tensortune.space import Config, SearchSpace

FAMILIES = ("vta", "cpu")
CPU_LAYERS = ("L7", "L8")  # the CPU family's default layers: the quickest tables to measure (about 5 min each)


def default_path(family: str) -> str:
    return os.path.join(os.path.expanduser("~"), ".cache", "tensortune", "glimpse", f"{family}.json")


def _vta_spec(hw: dict[str, Any]) -> HardwareSpec:
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS

    return vta_specs({k: (int(v),) for k, v in hw.items() if k in DEFAULT_HW_OPTIONS})[0]


@dataclass
class Pair:
    design: HardwareSpec
    layer: str
    space: Any
    idx: np.ndarray  # every structurally valid config (index matrix)
    cycles: np.ndarray  # inf where invalid
    context: np.ndarray

    @property
    def valid(self) -> np.ndarray:
        return np.isfinite(self.cycles)

    def quality(self, rows: np.ndarray) -> np.ndarray:
        """optimum / cycles of each config (0 where invalid)."""
        pos = {tuple(r): i for i, r in enumerate(self.idx)}
        c = np.array([self.cycles[pos[tuple(r)]] for r in rows])
        return np.where(np.isfinite(c), self.cycles[self.valid].min() / c, 0.0)


def layer_features(conv: Any) -> np.ndarray:
    return np.log2([conv.in_channels, conv.height, conv.out_channels, conv.kernel[0], conv.stride[0],
                    conv.out_hw[0]]).astype(np.float64)


def cpu_family() -> list[HardwareSpec]:
    """Every CPU target of the family (the Blueprint is fitted on all of them, runnable here or not)."""
    from tensortune.hardware.specs import cpu_specs

    return cpu_specs()


def cpu_spec_of(target: dict[str, Any]) -> HardwareSpec:
    """The family member an LLVM target is (by ``mcpu`` and ``num-cores``); ValueError names the members."""
    family = cpu_family()
    cores = int(target.get("num-cores", os.cpu_count() or 1))
    for s in family:
        if s.target.get("mcpu") == target.get("mcpu") and int(s.target["num-cores"]) == cores:
            return s
    names = ", ".join(f"{s.target['mcpu']} x{s.target['num-cores']}" for s in family)
    raise ValueError(f"target {json.dumps(target)} is not a member of Glimpse's CPU family ({names}); "
                     "give --target as one of them, e.g. '{\"kind\": \"llvm\", \"mcpu\": \"haswell\", \"num-cores\": 2}'")


def table_dir(root: str, spec: HardwareSpec) -> str:
    """Where the ground-truth tables of one CPU target live under a family's table directory."""
    return os.path.join(root, f"{spec.target['mcpu']}-x{spec.target['num-cores']}")


def table_pair(spec: HardwareSpec, gt: Any, blueprint: np.ndarray) -> Pair:
    """A training pair from a ground-truth table: every config of the layer's reduced space measured on
    ``spec`` (seconds instead of cycles; inf where the measurement failed)."""
    space = gt.task.space
    idx = np.array([space.config(int(i)).indices for i in gt.index], dtype=np.int64).reshape(-1, len(space.knobs))
    return Pair(spec, gt.name, space, idx, np.asarray(gt.cost, dtype=np.float64),
                np.concatenate([blueprint, layer_features(gt.task.workload)]))


def load_cpu_tables(root: str, layers: tuple[str, ...] | list[str] = CPU_LAYERS) -> dict[str, list[Any]]:
    """The tables under ``root`` per family member name (members without any table are left out); a
    table measured for another target than its directory says is an error."""
    from tensortune.storage.tables import GroundTruth, table_path

    out: dict[str, list[Any]] = {}
    for spec in cpu_family():
        d = table_dir(root, spec)
        tabs = []
        for layer in layers:
            if table_path(layer, d).exists():
                gt = GroundTruth.load(table_path(layer, d))
                t = gt.task.target
                if t.get("mcpu") != spec.target["mcpu"] or int(t.get("num-cores", 0)) != spec.target["num-cores"]:
                    raise ValueError(f"{table_path(layer, d)} was measured for {json.dumps(t)}, not {spec.name}")
                tabs.append(gt)
        if tabs:
            out[spec.name] = tabs
    return out


def make_pair(spec: HardwareSpec, layer: str, conv: Any, blueprint: np.ndarray) -> Pair:
    from tensortune.accel.vta import ConvShape, evaluate
    from tensortune.templates.vta_conv2d import VtaConv2d

    space = VtaConv2d().space_for(conv, spec.target)
    idx = np.indices(tuple(int(r) for r in space.radices)).reshape(len(space.knobs), -1).T
    idx = idx[space.valid_mask(idx)]
    vals = space.value_arrays(idx)
    out = evaluate(ConvShape.of(conv), {**spec.target["hw"], **vals})
    return Pair(spec, layer, space, idx, np.asarray(out["cycles"], dtype=np.float64),
                np.concatenate([blueprint, layer_features(conv)]))


def top_configs(pair: Pair, n: int) -> np.ndarray:
    order = np.argsort(pair.cycles, kind="stable")
    return pair.idx[order[:n]][np.isfinite(pair.cycles[order[:n]])]


@dataclass
class GlimpseModels:
    family: str
    blueprint: Blueprint
    prior: PriorGenerator
    vote: ThresholdVote
    trained_on: dict[str, Any]
    acquisition: NeuralAcquisition | None = None

    # ------------------------------------------------------------------ storage
    def save(self, path: str) -> None:
        bp = self.blueprint
        doc = {"family": self.family, "blueprint": {"columns": bp.columns, "mean": bp.mean.tolist(),
                                                    "scale": bp.scale.tolist(), "components": bp.components.tolist(),
                                                    "explained": bp.explained.tolist()},
               "prior": self.prior.to_json(), "vote": self.vote.to_json(), "trained_on": self.trained_on,
               "acquisition": self.acquisition.to_json() if self.acquisition is not None else None}
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        tmp = f"{path}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            json.dump(doc, f)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: str) -> GlimpseModels:
        with open(path) as f:
            d = json.load(f)
        b = d["blueprint"]
        bp = Blueprint(list(b["columns"]), np.array(b["mean"]), np.array(b["scale"]), np.array(b["components"]),
                       np.array(b["explained"]))
        af = d.get("acquisition")
        return cls(d["family"], bp, PriorGenerator.from_json(d["prior"]), ThresholdVote.from_json(d["vote"]),
                   dict(d["trained_on"]), NeuralAcquisition.from_json(af) if af else None)

    # ------------------------------------------------------------------ use
    def context(self, workload: Any, target: dict[str, Any]) -> np.ndarray:
        from tensortune.templates.vta_conv2d import target_hardware

        if self.family == "cpu" and target.get("kind") == "llvm":
            return np.concatenate([self.blueprint.embed([cpu_spec_of(target)])[0], layer_features(workload)])
        if self.family != "vta" or target.get("kind") != "vta-sim":
            raise ValueError(f"these Glimpse models were trained for the {self.family} family, not for target "
                             f"kind {target.get('kind')!r}")
        hw = target_hardware(target).knob_values()
        return np.concatenate([self.blueprint.embed([_vta_spec(hw)])[0], layer_features(workload)])

    def for_task(self, space: SearchSpace, workload: Any, target: dict[str, Any], n: int) -> TaskGlimpse:
        ctx = self.context(workload, target)
        names = [k.name for k in space.knobs]
        if names != self.prior.knobs:
            raise ValueError(f"these Glimpse models know the knobs {self.prior.knobs}, the task's space has {names}")

        def valid(idx: np.ndarray) -> np.ndarray:
            return self.vote.predict(ctx, magnitudes(space, idx))

        rows = first_plan_rows(self.prior, self.vote, ctx, space, n)
        return TaskGlimpse([Config(tuple(int(i) for i in r)) for r in rows], valid, self.acquisition,
                           ctx[: self.blueprint.dim])


def first_plan_rows(prior: PriorGenerator, vote: ThresholdVote, ctx: np.ndarray, space: SearchSpace,
                    n: int) -> np.ndarray:
    """The prior's ``n`` most probable configs that the vote lets through; if it lets none through (it is
    wrong about this hardware), the prior's most probable configs."""
    rows = prior.initial_indices(ctx, space, n, keep=lambda r: vote.predict(ctx, magnitudes(space, r)))
    return rows if len(rows) else prior.initial_indices(ctx, space, n)


@dataclass
class TaskGlimpse:
    """What Glimpse gives one task: the first configs to measure and a validity filter."""

    first_plan: list[Config]
    valid: Any  # (n, n_knobs) index matrix -> bool mask
    acquisition: NeuralAcquisition | None = None  # the ``glimpse`` recipe's plan picker
    blueprint: np.ndarray | None = None  # the target's Blueprint (the acquisition function's state)


def train_vta(designs: int = 200, exclude: list[str] | None = None, seed: int = 0, bp_dim: int = 6,
              top: int = 10, vote_configs: int = 2000, command: str = "",
              chosen: list[HardwareSpec] | None = None, af_iterations: int = 30,
              progress: Any = None, checkpoint: str | None = None) -> GlimpseModels:
    """Glimpse's parts for the VTA family, trained on ``designs`` random designs of the co-design grid
    (never on those named in ``exclude``: held-out hardware), or on ``chosen``, and every ResNet-18 conv
    layer: the prior, the vote and (``af_iterations`` PPO iterations; 0: none) the acquisition function."""
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.workloads.layer_tables import model_tasks

    t0 = time.perf_counter()
    family = vta_specs(DEFAULT_HW_OPTIONS)
    held = set(exclude or [])
    unknown = held - {s.name for s in family}
    if unknown:
        raise ValueError(f"unknown VTA designs {sorted(unknown)} (names look like {family[0].name})")
    pool = [s for s in family if s.name not in held]
    if not 1 <= designs <= len(pool):
        raise ValueError(f"designs must be 1..{len(pool)}, got {designs}")
    rng = np.random.default_rng(seed)
    if chosen is None:
        chosen = [pool[i] for i in rng.choice(len(pool), designs, replace=False)]
    bp = Blueprint.fit(family, bp_dim)
    emb = bp.embed(chosen)
    pairs = [p for i, s in enumerate(chosen) for name, conv in model_tasks("resnet18")
             for p in [make_pair(s, name, conv, emb[i])] if p.valid.any()]
    if not pairs:
        raise ValueError("no training pair has a valid configuration")
    trained_on = {"family": "vta", "designs": [s.name for s in chosen], "excluded": sorted(held),
                  "layers": "resnet18 (all conv layers)"}
    return _fit("vta", bp, pairs, trained_on, rng, t0, seed=seed, top=top, vote_configs=vote_configs, command=command,
                af_iterations=af_iterations, progress=progress, checkpoint=checkpoint)


def train_cpu(tables: dict[str, list[Any]], exclude: list[str] | None = None, seed: int = 0, bp_dim: int = 3,
              top: int = 10, vote_configs: int = 2000, command: str = "", af_iterations: int = 30,
              progress: Any = None, checkpoint: str | None = None) -> GlimpseModels:
    """Glimpse's parts for the CPU family from ground-truth tables (``load_cpu_tables``): one training
    pair per (target, layer) table, never of a target named in ``exclude`` (held-out hardware)."""
    t0 = time.perf_counter()
    family = cpu_family()
    by_name = {s.name: s for s in family}
    held = set(exclude or [])
    unknown = (held | set(tables)) - set(by_name)
    if unknown:
        raise ValueError(f"unknown CPU targets {sorted(unknown)} (the family: {', '.join(by_name)})")
    chosen = [by_name[n] for n in by_name if n in tables and n not in held]
    if not chosen:
        raise ValueError("no training tables: measure some with `tensortune glimpse-train --family cpu --tables DIR "
                         "--measure` (or `tensortune groundtruth --target ... --out DIR/<mcpu>-x<cores>`)")
    bp = Blueprint.fit(family, bp_dim)
    emb = bp.embed(chosen)
    pairs = [table_pair(s, gt, emb[i]) for i, s in enumerate(chosen) for gt in tables[s.name]]
    pairs = [p for p in pairs if p.valid.any()]
    if not pairs:
        raise ValueError("no training table has a config that ran")
    names = {tuple(k.name for k in p.space.knobs) for p in pairs}
    if len(names) > 1:
        raise ValueError(f"the tables' spaces have different knobs: {sorted(names)}")
    layers = sorted({p.layer for p in pairs})
    trained_on = {"family": "cpu", "designs": [s.name for s in chosen], "excluded": sorted(held),
                  "layers": ",".join(layers), "template": tables[chosen[0].name][0].task.template,
                  "machine": tables[chosen[0].name][0].device}
    return _fit("cpu", bp, pairs, trained_on, np.random.default_rng(seed), t0, seed=seed, top=top,
                vote_configs=vote_configs, command=command, af_iterations=af_iterations, progress=progress,
                checkpoint=checkpoint)


def _fit(family: str, bp: Blueprint, pairs: list[Pair], trained_on: dict[str, Any], rng: np.random.Generator,
         t0: float, *, seed: int, top: int, vote_configs: int, command: str, af_iterations: int, progress: Any,
         checkpoint: str | None) -> GlimpseModels:
    """The prior, the vote and the acquisition function of one family, trained on its pairs."""
    knobs = [k.name for k in pairs[0].space.knobs]
    sub = [rng.choice(len(p.idx), min(len(p.idx), vote_configs), replace=False) for p in pairs]
    trained_on = {**trained_on, "pairs": len(pairs), "seed": seed, "vote_configs": int(sum(len(s) for s in sub)),
                  "best_per_pair": top, "command": command}
    prior = PriorGenerator.fit(knobs, [p.context for p in pairs], [magnitudes(p.space, top_configs(p, top)) for p in pairs],
                               seed=seed, trained_on=trained_on)
    vote = ThresholdVote.fit(knobs, [p.context for p in pairs], [magnitudes(p.space, p.idx[s]) for p, s in zip(pairs, sub, strict=True)],
                             [p.valid[s] for p, s in zip(pairs, sub, strict=True)], trained_on=trained_on)
    af = None
    if af_iterations > 0:
        t1 = time.perf_counter()
        af, history = train_acquisition(pairs, prior, vote, bp.dim, iterations=af_iterations, seed=seed,
                                        progress=progress, checkpoint=checkpoint,
                                        settings={"family": family, "designs": trained_on["designs"],
                                                  "layers": trained_on["layers"], "bp_dim": bp.dim, "top": top})
        trained_on["acquisition"] = {"iterations": af_iterations, "algorithm": "PPO (clipped), Monte-Carlo baseline",
                                     "episode_budgets": list(AF_BUDGETS), "plan": AF_PLAN,
                                     "candidates": AF_CANDIDATES, "train_s": round(time.perf_counter() - t1, 2),
                                     "first": history[0], "last": history[-1]}
        af.trained_on = dict(trained_on)
    trained_on["train_s"] = round(time.perf_counter() - t0, 2)
    return GlimpseModels(family, bp, prior, vote, trained_on, af)


# ---------------------------------------------------------------------------------------------------------
# the meta-learned acquisition function (item 3)

AF_PLAN = 8  # configs per plan, as the ``glimpse`` recipe's default plan size
AF_CANDIDATES = 128  # candidates per round the network chooses among (the recipe's 16 x plan size)
AF_BUDGETS = (48, 96, 144)  # the budget T of a training episode is one of these (T is in the state)


def af_episode(pair: Pair, prior: PriorGenerator, vote: ThresholdVote, af: NeuralAcquisition, budget: int,
               rng: np.random.Generator, explore: bool = True, members: int = 5,
               cache: dict[int, Any] | None = None) -> tuple[list[Decision], np.ndarray]:
    """One tuning run of the ``glimpse`` recipe's loop on a training pair, the analytical model answering.
    The candidates are the surrogate's best unvisited configs (the recipe's simulated annealing walks
    the same surrogate; the training pairs are small enough to score every config), through the vote.
    Returns the network's decisions with their rewards and the curve of best quality per measurement."""
    from tensortune.cost_models.ensemble import BootstrapEnsemble

    space, ctx = pair.space, pair.context
    bp = ctx[: af.n_in - len(BASE_COLUMNS)]  # the context is the Blueprint, then the layer's features
    cache = {} if cache is None else cache
    if id(pair) not in cache:  # what does not change between episodes of a pair: the vote, the first plan
        pos = {tuple(r): i for i, r in enumerate(pair.idx)}
        cache[id(pair)] = (vote.predict(ctx, magnitudes(space, pair.idx)),
                           [pos[tuple(r)] for r in first_plan_rows(prior, vote, ctx, space, AF_PLAN)
                            if tuple(r) in pos], space.encode_indices(pair.idx))
    voted, first, x_all = cache[id(pair)]
    y_all = np.where(pair.valid, 1.0 / np.where(pair.valid, pair.cycles, 1.0), 0.0)
    opt = float(y_all.max())
    seen = np.zeros(len(pair.idx), dtype=bool)
    order: list[int] = []

    def measure(rows: list[int]) -> None:
        for i in rows:
            if not seen[i] and len(order) < budget:
                seen[i] = True
                order.append(i)

    measure(first)
    if len(order) < AF_PLAN:  # the recipe fills a short first plan with random configs
        measure(list(rng.permutation(np.flatnonzero(~seen))[: AF_PLAN - len(order)]))
    model = BootstrapEnsemble(members=members, seed=int(rng.integers(1 << 30)))
    steps: list[Decision] = []
    ends: list[int] = []  # measurements made after each decision
    while len(order) < budget and not seen.all():
        ys = y_all[order]
        if ys.max() <= 0:  # nothing valid yet: the recipe plans randomly until something is
            measure(list(rng.permutation(np.flatnonzero(~seen))[:AF_PLAN]))
            continue
        model.fit(x_all[order], ys)
        free = np.flatnonzero(~seen)
        mu_free = model.predict(x_all[free])
        cand = free[np.argsort(-mu_free, kind="stable")[:AF_CANDIDATES]]
        cand = cand[voted[cand]] if voted[cand].any() else cand
        mu, sigma = model.predict_mean_std(x_all[cand])
        states = acquisition_state(mu, sigma, 1.0, len(order), budget, bp)
        picks, logp = af.choose(states, AF_PLAN, rng if explore else None)
        before = len(order)
        measure([int(cand[i]) for i in picks])
        steps.append(Decision(states, picks, logp))
        ends.append(len(order))
        if len(order) == before:
            break
    best = np.maximum.accumulate(y_all[order]) / opt
    for st, end in zip(steps, ends, strict=True):
        st.reward = float(best[end - 1])
    return steps, best


def train_acquisition(pairs: list[Pair], prior: PriorGenerator, vote: ThresholdVote, blueprint_dim: int, *,
                      iterations: int = 30, pairs_per_iter: int = 8, episodes_per_pair: int = 2, seed: int = 0,
                      progress: Any = None, checkpoint: str | None = None,
                      settings: dict[str, Any] | None = None) -> tuple[NeuralAcquisition, list[dict[str, float]]]:
    """PPO on the acquisition network: each iteration runs ``episodes_per_pair`` episodes (one budget drawn
    from :data:`AF_BUDGETS`) on each of ``pairs_per_iter`` random training pairs, then updates the network
    (the episodes of one pair form one baseline group). Returns the network and, per iteration, the mean
    final quality and area under the curve of its episodes.

    ``checkpoint``: after every iteration the network, the optimiser, the random state and the history are
    written there (atomically); a later call with the same ``settings`` (what the training data and the
    run are) continues from it, and its result is the one an uninterrupted run gives. The caller removes
    the checkpoint once the result is stored."""
    import torch

    if not pairs:
        raise ValueError("the acquisition function needs training pairs")
    rng = np.random.default_rng(seed)
    af = NeuralAcquisition.new(blueprint_dim, seed)
    trainer = PPOTrainer(af)
    cache: dict[int, Any] = {}
    history: list[dict[str, float]] = []
    key = json.dumps({**(settings or {}), "iterations": iterations, "pairs_per_iter": pairs_per_iter,
                      "episodes_per_pair": episodes_per_pair, "seed": seed, "pairs": len(pairs)}, sort_keys=True,
                     default=str)
    start = 0
    if checkpoint and os.path.exists(checkpoint):
        ck = torch.load(checkpoint, weights_only=False)
        if ck.get("key") == key:
            af.module.load_state_dict(ck["net"])
            trainer.opt.load_state_dict(ck["opt"])
            rng.bit_generator.state = ck["rng"]
            history, start = list(ck["history"]), int(ck["done"])
            if progress is not None:
                progress(f"  acquisition: resumed after iteration {start} of {iterations} from {checkpoint}")
    for it in range(start, iterations):
        groups, finals, aucs = [], [], []
        for pi in rng.choice(len(pairs), min(pairs_per_iter, len(pairs)), replace=False):
            budget = int(rng.choice(AF_BUDGETS))
            runs = [af_episode(pairs[pi], prior, vote, af, budget, rng, cache=cache) for _ in range(episodes_per_pair)]
            groups.append([steps for steps, _ in runs])
            finals += [float(c[-1]) for _, c in runs]
            aucs += [float(c.mean()) for _, c in runs]
        trainer.update(groups)
        history.append({"iteration": it, "final_quality": float(np.mean(finals)), "auc": float(np.mean(aucs))})
        if progress is not None:
            progress(f"  acquisition iteration {it + 1}/{iterations}: mean final quality {np.mean(finals):.3f}, "
                     f"area under the curve {np.mean(aucs):.3f}")
        if checkpoint:
            tmp = f"{checkpoint}.{os.getpid()}.tmp"
            torch.save({"key": key, "net": af.module.state_dict(), "opt": trainer.opt.state_dict(),
                        "rng": rng.bit_generator.state, "history": history, "done": it + 1}, tmp)
            os.replace(tmp, checkpoint)
    af.sync()
    return af, history
