"""Stop 73: why held-out L2 on the Zen 3 tables needs 41-60 replayed measurements with transfer (autotvm).
Prints L2's best configs, the first design (mapped configs, their share of the optimum), the sources and their
weights, and, for one seed, every measurement of the run in order with its share of the optimum.
Usage: python probe.py TABLES_DIR SEED"""
import sys
import tempfile
from pathlib import Path

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.measure.replay import ReplayMeasurer
from tensortune.storage import SQLiteStorage
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
from tensortune.tuners import Budget, Tuner, create

tables, seed = sys.argv[1], int(sys.argv[2])
tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
held = tabs["L2"]
sp = held.task.space
opt = float(held.optimum_gflops)
g = held.gflops
rel = dict(zip(held.index.tolist(), (g / opt).tolist(), strict=True))
print(f"L2 table: {held.n} configs, optimum {opt:.1f} GFLOP/s, "
      f"{held.configs_within(0.95)} within 95%, {held.configs_within(0.9)} within 90%")
for i in np.argsort(-g)[:12]:
    print(f"  {g[i] / opt:.3f} {sp.to_json(sp.config(int(held.index[i])))}")
corpus = default_corpus(held.meta.get("machine", {}).get("llvm_cpu"))
prior = TransferPrior.from_tables(held.task, [t for n, t in tabs.items() if n != "L2"], seed, corpus=corpus)
print("sources:", [(s.name, round(w, 4), len(s.y)) for s, w in zip(prior.sources, prior.similarity, strict=True)])
for c in prior.initial_configs():
    print(f"  first {rel.get(sp.index_of(c), float('nan')):.3f} {sp.to_json(c)}")

# the run, measurement by measurement (bench.transfer.run_one keeps only the curve; the records' order is wanted here)

strat = create("autotvm", sp, seed, transfer=prior, task=held.task)
with tempfile.TemporaryDirectory() as d:
    st = SQLiteStorage(Path(d) / "r.db")
    Tuner(held.task, strat, ReplayMeasurer([held]), st, Budget(trials=int(sys.argv[3]) if len(sys.argv) > 3 else 64),
          tuner_name="autotvm", seed=seed, remeasure_best=False, initial_configs=prior.initial_configs()).run()
    best = 0.0
    for n, r in enumerate(st.records(held.task.key, held.task.target_json, kind="trial"), 1):
        v = rel.get(r.config_index, 0.0)
        best = max(best, v)
        print(f"{n:3d} {v:.3f} best {best:.3f} {sp.to_json(sp.config(r.config_index))}")
