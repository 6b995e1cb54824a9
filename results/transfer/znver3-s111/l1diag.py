"""Stop 111: a held-out layer's transferred first design against its multi-pass table, and the table's 10 best configs with
each pass's reading (share of the optimum's median). Usage: python l1diag.py TABLE_DIR HELD SOURCE,SOURCE,..."""
import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import TransferPrior
tdir = sys.argv[1]; held = sys.argv[2]; others = sys.argv[3].split(',')
tables = {n: load_table(n, tdir) for n in [held]+others}
gt = tables[held]
corpus = default_corpus(gt.meta.get("machine", {}).get("llvm_cpu"))
prior = TransferPrior.from_tables(gt.task, [tables[o] for o in others], 0, corpus=corpus)
print("sources", [(s.name) for s in prior.sources], "table n", gt.n)
g = gt.gflops; opt = g.max(); sp = gt.task.space
def short(c): return {k: v for k, v in sp.values(c).items()}
for c in prior.initial_configs():
    p = gt.position(sp.index_of(c))
    print("init", None if p is None else round(g[p]/opt, 3), short(c))
for i in np.argsort(-g)[:10]:
    c = sp.config(int(gt.index[i]))
    extra = ""
    if gt.pass_cost is not None: extra = np.round(gt.task.flops/gt.pass_cost[i]/1e9/opt, 2)
    print("top", round(g[i]/opt, 3), extra, short(c))
