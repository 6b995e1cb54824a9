"""Glimpse's trained parts as one artifact, and what they give a tuning run (issue 17, items 2, 4, 5).

``train_vta`` evaluates the software spaces of designs of the VTA co-design grid on every ResNet-18 conv
layer with the analytical model (cycles and validity of every config: the "measurements" of this family
cost microseconds, so training data is recomputed rather than stored and a rerun is the resume), fits the
Blueprint of the whole family, the prior generator on each pair's best configs and the validity vote on
sampled configs, and writes them with what they were trained on (designs, layers, command) to one JSON
file. ``GlimpseModels.for_task`` turns them into a first plan (the prior's most probable configs that the
vote lets through) and a validity filter for one task; any model-based recipe takes them
(``create(..., glimpse=...)``, ``tensortune tune --glimpse FILE``).

Only the VTA family has a trainer: CPU targets need measured training data, and the meta-learned
acquisition function (item 3) is not built, so there is no ``glimpse`` recipe yet.
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
from tensortune.space import Config, SearchSpace

FAMILIES = ("vta",)


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

    # ------------------------------------------------------------------ storage
    def save(self, path: str) -> None:
        bp = self.blueprint
        doc = {"family": self.family, "blueprint": {"columns": bp.columns, "mean": bp.mean.tolist(),
                                                    "scale": bp.scale.tolist(), "components": bp.components.tolist(),
                                                    "explained": bp.explained.tolist()},
               "prior": self.prior.to_json(), "vote": self.vote.to_json(), "trained_on": self.trained_on}
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
        return cls(d["family"], bp, PriorGenerator.from_json(d["prior"]), ThresholdVote.from_json(d["vote"]),
                   dict(d["trained_on"]))

    # ------------------------------------------------------------------ use
    def context(self, workload: Any, target: dict[str, Any]) -> np.ndarray:
        from tensortune.templates.vta_conv2d import target_hardware

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

        rows = self.prior.initial_indices(ctx, space, n, keep=valid)
        return TaskGlimpse([Config(tuple(int(i) for i in r)) for r in rows], valid)


@dataclass
class TaskGlimpse:
    """What Glimpse gives one task: the first configs to measure and a validity filter."""

    first_plan: list[Config]
    valid: Any  # (n, n_knobs) index matrix -> bool mask


def train_vta(designs: int = 200, exclude: list[str] | None = None, seed: int = 0, bp_dim: int = 6,
              top: int = 10, vote_configs: int = 2000, command: str = "",
              chosen: list[HardwareSpec] | None = None) -> GlimpseModels:
    """Glimpse's parts for the VTA family, trained on ``designs`` random designs of the co-design grid
    (never on those named in ``exclude``: held-out hardware), or on ``chosen``, and every ResNet-18 conv
    layer."""
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
    knobs = [k.name for k in pairs[0].space.knobs]
    sub = [rng.choice(len(p.idx), min(len(p.idx), vote_configs), replace=False) for p in pairs]
    trained_on = {"family": "vta", "designs": [s.name for s in chosen], "excluded": sorted(held),
                  "layers": "resnet18 (all conv layers)", "pairs": len(pairs), "seed": seed,
                  "vote_configs": int(sum(len(s) for s in sub)), "best_per_pair": top, "command": command}
    prior = PriorGenerator.fit(knobs, [p.context for p in pairs], [magnitudes(p.space, top_configs(p, top)) for p in pairs],
                               seed=seed, trained_on=trained_on)
    vote = ThresholdVote.fit(knobs, [p.context for p in pairs], [magnitudes(p.space, p.idx[s]) for p, s in zip(pairs, sub, strict=True)],
                             [p.valid[s] for p, s in zip(pairs, sub, strict=True)], trained_on=trained_on)
    trained_on["train_s"] = round(time.perf_counter() - t0, 2)
    return GlimpseModels("vta", bp, prior, vote, trained_on)
