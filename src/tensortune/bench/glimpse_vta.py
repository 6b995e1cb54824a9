"""Glimpse on held-out VTA designs: initial samples and validity voting, trained on other designs.

For every (design, layer) pair the whole software space of ``conv2d_nchw.vta-sim`` is evaluated with
the analytical model (cycles and validity of each config), so the optimum is known exactly. Per seed,
designs are drawn from the co-design grid (``DEFAULT_HW_OPTIONS``); ``train`` of them train the prior
generator and the validity ensemble on every ResNet-18 conv layer; the others are held out and never seen
in training. On each held-out (design, layer):

- **initial samples** (the paper's Figure 4): the first 100 configs of the prior (highest product of
  knob probabilities), of random sampling (what AutoTVM's and Chameleon's first plans are), and of
  transfer learning (the best 100 configs of the same layer on the nearest training design by Blueprint
  distance, each knob mapped to the option of nearest magnitude); quality = optimum cycles / cycles (0
  for an invalid config), the mean over the 100 and the best of them;
- **validity voting**: of random configs, the share that is invalid, the share of those the ensemble
  lets through that is invalid, and the share of valid configs it keeps.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.cost_models.validity_vote import ThresholdVote, magnitudes, option_magnitudes
from tensortune.hardware.blueprint import Blueprint
from tensortune.hardware.specs import HardwareSpec, vta_specs
from tensortune.samplers.glimpse_prior import PriorGenerator


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


def _top(pair: Pair, n: int) -> np.ndarray:
    order = np.argsort(pair.cycles, kind="stable")
    return pair.idx[order[:n]][np.isfinite(pair.cycles[order[:n]])]


def _transfer(src: Pair, dst: Pair, n: int) -> np.ndarray:
    """``src``'s best configs mapped onto ``dst``'s space (nearest magnitude per knob), valid ones first."""
    sm, rows = magnitudes(src.space, _top(src, n)), []
    tables = [option_magnitudes(k) for k in dst.space.knobs]
    for m in sm:
        rows.append([int(np.argmin(np.abs(t - v))) for t, v in zip(tables, m, strict=True)])
    rows = np.array(rows, dtype=np.int64).reshape(-1, len(dst.space.knobs))
    if not len(rows):
        return rows
    ok = dst.space.valid_mask(rows)
    out = list(dict.fromkeys(map(tuple, rows[ok])))  # valid mapped configs, duplicates removed
    return np.array(out[:n], dtype=np.int64).reshape(-1, len(dst.space.knobs))


def run(seeds: list[int], designs: int = 30, train: int = 24, n: int = 100, bp_dim: int = 6,
        progress: Callable[[str], None] = lambda _m: None) -> dict[str, Any]:
    from tensortune.templates.vta_conv2d import DEFAULT_HW_OPTIONS
    from tensortune.workloads.layer_tables import model_tasks

    family = vta_specs(DEFAULT_HW_OPTIONS)
    bp = Blueprint.fit(family, bp_dim)
    layers = model_tasks("resnet18")
    rows: list[dict[str, Any]] = []
    costs: dict[str, float] = {}
    for seed in seeds:
        rng = np.random.default_rng(seed)
        chosen = [family[i] for i in rng.choice(len(family), designs, replace=False)]
        emb = bp.embed(chosen)
        t0 = time.perf_counter()
        pairs = [[make_pair(s, name, conv, emb[i]) for name, conv in layers] for i, s in enumerate(chosen)]
        t_eval = time.perf_counter() - t0
        tr = [p for ps in pairs[:train] for p in ps if p.valid.any()]
        knobs = [k.name for k in tr[0].space.knobs]
        t0 = time.perf_counter()
        prior = PriorGenerator.fit(knobs, [p.context for p in tr], [magnitudes(p.space, _top(p, 10)) for p in tr],
                                   seed=seed, trained_on={"designs": [s.name for s in chosen[:train]], "layers": "resnet18"})
        sub = [rng.choice(len(p.idx), min(len(p.idx), 2000), replace=False) for p in tr]
        vote = ThresholdVote.fit(knobs, [p.context for p in tr], [magnitudes(p.space, p.idx[s]) for p, s in zip(tr, sub, strict=True)],
                                 [p.valid[s] for p, s in zip(tr, sub, strict=True)])
        t_train = time.perf_counter() - t0
        costs = {"evaluate_s": t_eval, "train_s": t_train, "train_pairs": len(tr),
                 "train_configs": int(sum(len(s) for s in sub))}
        for d in range(train, designs):
            dist = np.linalg.norm(emb[:train] - emb[d], axis=1)
            near = int(np.argmin(dist))
            for li, p in enumerate(pairs[d]):
                if not p.valid.any():
                    continue
                r = rng.choice(len(p.idx), min(n, len(p.idx)), replace=False)
                voted = lambda rows, p=p, vote=vote: vote.predict(p.context, magnitudes(p.space, rows))  # noqa: E731
                sampled = {"random": p.idx[r], "glimpse prior": prior.initial_indices(p.context, p.space, n),
                           "glimpse prior+vote": prior.initial_indices(p.context, p.space, n, keep=voted),
                           "transfer": _transfer(pairs[near][li], p, n)}
                row = {"seed": seed, "design": p.design.name, "layer": p.layer, "valid_share": float(p.valid.mean())}
                for name, s in sampled.items():
                    q = p.quality(s) if len(s) else np.zeros(1)
                    row[f"{name} mean"], row[f"{name} best"] = float(q.mean()), float(q.max())
                many = rng.choice(len(p.idx), min(len(p.idx), 1000), replace=False)
                keep = vote.predict(p.context, magnitudes(p.space, p.idx[many]))
                v = p.valid[many]
                row["invalid random"] = float(1 - v.mean())
                row["invalid after vote"] = float(1 - v[keep].mean()) if keep.any() else float("nan")
                row["valid kept"] = float(keep[v].mean()) if v.any() else float("nan")
                rows.append(row)
        progress(f"seed {seed}: {len(rows)} held-out pairs so far")
    return {"rows": rows, "costs": costs, "designs": designs, "train": train, "n": n, "blueprint_dim": bp_dim,
            "blueprint_loss": bp.reconstruction_rmse(family)}


def summary(res: dict[str, Any]) -> list[tuple[str, float]]:
    """Medians over held-out pairs within a seed, then the median over seeds."""
    rows = res["rows"]
    keys = [k for k in rows[0] if k not in ("seed", "design", "layer")]
    seeds = sorted({r["seed"] for r in rows})
    out = []
    for k in keys:
        per = [float(np.nanmedian([r[k] for r in rows if r["seed"] == s])) for s in seeds]
        out.append((k, float(np.median(per))))
    return out
