"""Stop 73: after each refit of held-out L2's transferred model (autotvm, replay), where the model ranks the table's
two configs within 95% among all of L2's configs, the sources' trust and the fade.
Usage: python diag.py TABLES_DIR SEED TRIALS"""
import sys

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer import TransferPrior
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus

tables, seed, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
layer = sys.argv[4] if len(sys.argv) > 4 else "L2"
tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
held = tabs[layer]
rel = held.gflops / held.optimum_gflops
good = held.index[rel >= 0.95]
corpus = default_corpus(held.meta.get("machine", {}).get("llvm_cpu"))
sources = [t for n, t in tabs.items() if n != layer]
# the prior's features, to score every config of the table (the run builds its own, equal prior)
allx = TransferPrior.from_tables(held.task, sources, seed, corpus=corpus).model_features.encode_indices(np.asarray(held.index))
orig_fit = P.PriorCostModel.fit


def fit(self, x, y):
    orig_fit(self, x, y)
    pred = self.predict(allx)
    rank = np.argsort(np.argsort(-pred))  # 0 = best predicted
    print(f"fit on {len(y)} own: trust {[round(t, 2) for t in self.trust]}; ranks of the >=95% configs "
          f"{sorted(int(rank[np.where(held.index == i)[0][0]]) for i in good)} of {len(pred)}; "
          f"true share of the model's top 16: {np.round(np.sort(rel[np.argsort(-pred)[:16]])[::-1], 2).tolist()}")


P.PriorCostModel.fit = fit
r = run_one(held, sources, "autotvm", seed, trials, True, corpus=corpus)  # builds the same prior (same seed)
print("curve (share of optimum) every 8:", [round(v / held.optimum_gflops, 3) for v in r["curve"][7::8]])
