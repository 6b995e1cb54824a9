"""First designs of the 24 replay cells: the place of the first config at >= 95% of the held-out optimum."""
import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
DIRS = {"znver5": None, "znver4": "results/transfer/tables-znver4", "znver3": "results/transfer/tables-znver3",
        "rocketlake": "results/transfer/tables-rocketlake", "emeraldrapids": "results/transfer/tables-emeraldrapids",
        "znver4-no-avx512-no-gfni": "results/transfer/tables-znver4-no-avx512-no-gfni"}
L = ["L1", "L2", "L7", "L8"]
def cells(fn=None):
    out = {}
    for cpu, d in DIRS.items():
        tabs = {n: load_table(n, d) for n in L}
        corpus = default_corpus(cpu)
        for held in L:
            gt = tabs[held]
            prior = TransferPrior.from_tables(gt.task, [tabs[x] for x in L if x != held], 0, corpus=corpus)
            g = gt.task.flops / gt.cost / 1e9
            opt = np.max(g[np.isfinite(g)])
            pos = {int(i): r for r, i in enumerate(gt.index)}
            cfgs = (fn or TransferPrior.initial_configs)(prior)
            fr = [float(g[pos[prior.task.space.index_of(c)]] / opt) if prior.task.space.index_of(c) in pos else 0.0 for c in cfgs]
            first = next((k + 1 for k, f in enumerate(fr) if f >= 0.95), None)
            out[(cpu, held)] = (first, fr)
    return out
if __name__ == "__main__":
    for k, (first, fr) in cells().items():
        print(k, first, [round(f, 2) for f in fr])
