"""Stop 100: the first design of each held-out Zen 4 table layer as the replay builds it (the other three tables
and the shipped znver4 corpus as sources, seed 0), with each config's share of the table's optimum, its source
(nearest by mapping) and the knobs. Also the sources' similarity. Usage: python firstdesign.py [LAYERS]"""
import sys

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus

D = "/work/main/results/transfer/tables-znver4"
tables = {n: load_table(n, D) for n in ["L1", "L2", "L7", "L8"]}
for held in (sys.argv[1] if len(sys.argv) > 1 else "L7").split(","):
    gt = tables[held]; sp = gt.task.space
    at = {int(i): j for j, i in enumerate(gt.index)}
    share = lambda c: round(float(gt.gflops[at[sp.index_of(c)]] / gt.optimum_gflops), 3) if sp.index_of(c) in at else None
    prior = TransferPrior.from_tables(gt.task, [tables[x] for x in tables if x != held], 0, corpus=default_corpus("znver4"))
    print(f"== {held}: {gt.task.key}; {len(gt.index)} configs, optimum {gt.optimum_gflops:.1f} GFLOP/s; "
          f"{int(np.sum(gt.gflops >= 0.95 * gt.optimum_gflops))} within 95%")
    for s, sim in sorted(zip(prior.sources, prior.similarity), key=lambda t: -t[1])[:8]:
        print(f"   source sim {sim:.3f}  {s.name}  ({len(s.y)} records)")
    for i, c in enumerate(prior.initial_configs(), 1):
        print(f"   first design {i}: share {share(c)}  {sp.to_json(c)}")
    best = np.argsort(-gt.gflops)[:5]
    for j in best:
        print(f"   table best: share {gt.gflops[j] / gt.optimum_gflops:.3f}  {sp.to_json(sp.config(int(gt.index[j])))}")
