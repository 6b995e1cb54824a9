"""Stop 73: after each refit of held-out L2's transferred model (autotvm, replay), where the model ranks the table's
two configs within 95% among all of L2's configs, the sources' trust and the fade.
Usage: python diag.py TABLES_DIR SEED TRIALS"""
import sys
import tempfile
from pathlib import Path

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.measure.replay import ReplayMeasurer
from tensortune.storage import SQLiteStorage
from tensortune.transfer import TransferPrior
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus
from tensortune.tuners import Budget, Tuner, create

tables, seed, trials = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
layer = sys.argv[4] if len(sys.argv) > 4 else "L2"
tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
held = tabs[layer]
sp = held.task.space
g = np.where(np.isfinite(held.cost) & (held.cost > 0), held.task.flops / np.where(held.cost > 0, held.cost, 1), 0)
rel = g / g.max()
order = np.argsort(-rel)
good = held.index[rel >= 0.95]
corpus = default_corpus(held.meta.get("machine", {}).get("llvm_cpu"))
prior = TransferPrior.from_tables(held.task, [t for n, t in tabs.items() if n != layer], seed, corpus=corpus)
enc = prior.model_features.encode_indices
allx = enc(np.asarray(held.index))
orig_fit = P.PriorCostModel.fit


def fit(self, x, y):
    orig_fit(self, x, y)
    pred = self.predict(allx)
    rank = np.argsort(np.argsort(-pred))  # 0 = best predicted
    own_pred = None
    print(f"fit on {len(y)} own: trust {[round(t, 2) for t in self.trust]}; ranks of the >=95% configs "
          f"{sorted(int(rank[np.where(held.index == i)[0][0]]) for i in good)} of {len(pred)}; "
          f"true share of the model's top 16: {np.round(np.sort(rel[np.argsort(-pred)[:16]])[::-1], 2).tolist()}")


P.PriorCostModel.fit = fit
strat = create("autotvm", sp, seed, transfer=prior, task=held.task)
with tempfile.TemporaryDirectory() as d:
    st = SQLiteStorage(Path(d) / "r.db")
    s = Tuner(held.task, strat, ReplayMeasurer([held]), st, Budget(trials=trials), tuner_name="autotvm", seed=seed,
              remeasure_best=False, initial_configs=prior.initial_configs()).run()
print("curve (share of optimum) every 8:", [round(v / g.max() * 1e9, 3) for v in s.curve[7::8]])
