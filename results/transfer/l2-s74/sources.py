"""Stop 74: how well each source of a held-out layer's transferred model ranks the held-out layer's whole table
(replay, autotvm with transfer, as `tensortune bench transfer --features knobs+corpus`). Per source: its shape
similarity, its weight share before any own outcome, its trust after the first design (8 own outcomes) and Kendall's
tau of a model fitted on that source alone over every pair of the held-out table's configs (the truth the trust
estimates), and over the pairs of the configs within 50% of the optimum (the region a search works in).
Usage: python sources.py TABLES_DIR LAYER [SEED]"""
import sys

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer import TransferPrior
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus

tables, layer = sys.argv[1], sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
held = tabs[layer]
rel = held.gflops / held.optimum_gflops
corpus = default_corpus(held.meta.get("machine", {}).get("llvm_cpu"))
sources = [t for n, t in tabs.items() if n != layer]
allx = TransferPrior.from_tables(held.task, sources, seed, corpus=corpus).model_features.encode_indices(
    np.asarray(held.index))
top = rel >= 0.5
orig_fit = P.PriorCostModel.fit
done = []


def fit(self, x, y):
    orig_fit(self, x, y)
    if done:
        return
    done.append(1)
    pr = self.prior
    sim = np.array(pr.similarity)
    print(f"{tables} held out {layer}: {len(held.index)} configs, {int(top.sum())} within 50%; "
          f"{len(pr.sources)} sources; first design {len(y)} own outcomes")
    for j, src in enumerate(pr.sources):
        key = (P._source_key(src), repr(getattr(self._blank, "params", type(self._blank).__name__)))
        model = pr.source_models.get(key)
        if model is None:
            print(f"  {src.name[:70]:70s} no model")
            continue
        pred = model.predict(allx)
        tau_all = 2 * P.pairwise_accuracy(pred, held.gflops) - 1
        tau_top = 2 * P.pairwise_accuracy(pred[top], held.gflops[top]) - 1
        print(f"  {src.name[:70]:70s} sim {sim[j]:.3f} share {sim[j] / sim.sum():.2f} rows {len(src.y):5d} "
              f"trust@8 {self.trust[j]:.2f}  tau(table) {tau_all:+.2f}  tau(>=50%) {tau_top:+.2f}")


P.PriorCostModel.fit = fit
run_one(held, sources, "autotvm", seed, 8 + 16, True, corpus=corpus)
