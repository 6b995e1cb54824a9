"""Which features transfer to a held-out layer: ours (``transfer/features.py``: shape columns and split
factors relative to the loop) against MetaSchedule's ``PerStoreFeature`` of the scheduled program
(``features/hidden.py``: per buffer store, 164 columns of loop extents, annotations, arithmetic and
bytes touched, reduced to sum, max and store count), and both together.

For each held-out table, the cost model (XGBoost, rank loss, one group per source layer, as the transfer
prior fits it) is trained on a sample of the other tables' configs and ranks a sample of the held-out
table's configs, none of which it saw. Figures per held-out layer and feature set: Spearman's rank
correlation of predicted and measured throughput; the best measured config among the model's top 32 as
a share of the table's optimum (what the first plan of a transferred search would find); and the seconds
spent computing the features. Everything comes from the tables (replay): nothing is measured, and the
figures are the table's machine's.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from tensortune.bench.groundtruth import GroundTruth, load_table

FEATURE_SETS = ("ours", "per-store", "both")
TOP_K = 32


@dataclass
class FeatureRow:
    held_out: str
    features: str
    sources: list[str]
    spearman: float
    top_k_share: float  # best measured config among the predicted top-k, / the table's optimum
    feature_seconds: float
    train_configs: int
    test_configs: int


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


def _sample(gt: GroundTruth, n: int, rng: np.random.Generator) -> np.ndarray:
    """Positions of up to ``n`` configs of the table (failed ones included: they score 0)."""
    return np.sort(rng.permutation(gt.n)[:n])


def _featurizers(gt: GroundTruth) -> dict[str, Callable[[np.ndarray], np.ndarray]]:
    from tensortune.features.hidden import HiddenFeatures
    from tensortune.transfer import TransferFeatures

    ours = TransferFeatures(gt.task)
    hidden = HiddenFeatures(gt.task)

    def f_ours(pos: np.ndarray) -> np.ndarray:
        return ours.encode_indices(gt.index[pos])

    def f_store(pos: np.ndarray) -> np.ndarray:
        x = hidden([gt.task.space.config(int(i)) for i in gt.index[pos]])
        return np.log2(1.0 + np.maximum(np.nan_to_num(x, nan=0.0), 0.0))

    return {"ours": f_ours, "per-store": f_store,
            "both": lambda pos: np.concatenate([f_ours(pos), f_store(pos)], axis=1)}


def compare_features(layers: list[str], train_per_layer: int = 256, test_per_layer: int = 512, seed: int = 0,
                     progress: Callable[[str], None] = lambda _m: None) -> list[FeatureRow]:
    from tensortune.cost_models.xgb import XGBoostCostModel

    if len(layers) < 2:
        raise ValueError("give at least two layers: one is held out, the others teach it")
    tables = {name: load_table(name) for name in layers}
    rng = np.random.default_rng(seed)
    train = {n: _sample(gt, train_per_layer, rng) for n, gt in tables.items()}
    test = {n: _sample(gt, test_per_layer, rng) for n, gt in tables.items()}
    feats: dict[tuple[str, str, str], np.ndarray] = {}  # (layer, set, split) -> features
    secs: dict[tuple[str, str], float] = {}
    for name, gt in tables.items():
        fz = _featurizers(gt)
        for fs in ("ours", "per-store"):
            t0 = time.perf_counter()
            for split, pos in (("train", train[name]), ("test", test[name])):
                feats[(name, fs, split)] = fz[fs](pos)
            secs[(name, fs)] = time.perf_counter() - t0
            progress(f"{name}: {fs} features of {len(train[name]) + len(test[name])} configs in "
                     f"{secs[(name, fs)]:.1f} s")
        for split in ("train", "test"):
            feats[(name, "both", split)] = np.concatenate([feats[(name, "ours", split)],
                                                           feats[(name, "per-store", split)]], axis=1)
        secs[(name, "both")] = secs[(name, "ours")] + secs[(name, "per-store")]

    def y_of(gt: GroundTruth, pos: np.ndarray) -> np.ndarray:
        c = gt.cost[pos]
        return np.where(np.isfinite(c) & (c > 0), gt.task.flops / np.where(c > 0, c, 1.0) / 1e9, 0.0)

    rows = []
    for held, gt in tables.items():
        sources = [n for n in tables if n != held]
        y_test = y_of(gt, test[held])
        opt = gt.optimum_gflops
        for fs in FEATURE_SETS:
            widths = {feats[(n, fs, "train")].shape[1] for n in tables}
            if len(widths) != 1:  # per-store rows of different programs can differ in width: pad
                w = max(widths)
                for n in tables:
                    for split in ("train", "test"):
                        x = feats[(n, fs, split)]
                        feats[(n, fs, split)] = np.pad(x, ((0, 0), (0, w - x.shape[1])))
            model = XGBoostCostModel(loss="rank", seed=seed)
            model.fit_groups([feats[(n, fs, "train")] for n in sources],
                             [y_of(tables[n], train[n]) for n in sources], [1.0] * len(sources))
            pred = model.predict(feats[(held, fs, "test")])
            top = np.argsort(-pred)[:TOP_K]
            rows.append(FeatureRow(held, fs, sources, _spearman(pred, y_test), float(np.max(y_test[top]) / opt),
                                   sum(secs[(n, fs)] for n in tables), sum(len(train[n]) for n in sources),
                                   len(test[held])))
            progress(f"held out {held}, {fs}: Spearman {rows[-1].spearman:.3f}, best of the top {TOP_K} "
                     f"{100 * rows[-1].top_k_share:.1f}% of the optimum")
    return rows


def write_report(rows: list[FeatureRow], out: Any, command: str, meta: dict[str, Any]) -> str:
    import json
    import os
    from dataclasses import asdict

    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "features.json"), "w") as f:
        json.dump({"command": command, "meta": meta, "rows": [asdict(r) for r in rows]}, f, indent=1)
    lines = ["# Transferable features against PerStoreFeature (held-out ground-truth tables, replay)", "",
             f"Command: `{command}`", "",
             f"Cost model: XGBoost, rank loss, one group per source table, trained on {meta['train_per_layer']} "
             f"configs of each other table; ranks {meta['test_per_layer']} unseen configs of the held-out table. "
             f"Tables measured on: {meta['machine']}.", "",
             "| held out | features | sources | Spearman | best of top 32 / optimum | feature seconds (all tables) |",
             "|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r.held_out} | {r.features} | {', '.join(r.sources)} | {r.spearman:.3f} | "
                     f"{100 * r.top_k_share:.1f}% | {r.feature_seconds:.1f} |")
    lines.append("")
    for fs in FEATURE_SETS:
        mine = [r for r in rows if r.features == fs]
        lines.append(f"- {fs}: median Spearman {np.median([r.spearman for r in mine]):.3f}, median best-of-top-32 "
                     f"{100 * np.median([r.top_k_share for r in mine]):.1f}%")
    path = os.path.join(out, "features.md")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path
