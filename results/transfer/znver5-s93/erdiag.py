import numpy as np, collections
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import _search
from tensortune.measure.replay import ReplayMeasurer
from tensortune.transfer.corpus import default_corpus
T="results/transfer/tables-emeraldrapids"
tabs = {n: load_table(n, T) for n in ["L1","L2","L7","L8"]}
l1 = tabs["L1"]
corpus = default_corpus("emeraldrapids")
task = l1.task; sp = task.space
g = l1.gflops; opt = g.max()
G = {int(i): float(v)/opt for i, v in zip(l1.index, g)}
kn = lambda i: sp.values(sp.config(int(i)))
order = np.argsort(-g)
n95 = int((g >= 0.95*opt).sum()); print("configs", len(g), "within 95%:", n95, "opt GFLOP/s", opt)
top = [int(l1.index[p]) for p in order[:max(n95,5)]]
print("knob names", sp.names)
for k in sp.names:
    print(k, "top:", collections.Counter(str(kn(i)[k]) for i in top).most_common(4))
for i in top[:8]: print(round(G[i],3), kn(i))
for seed in (0, 1):
    r = _search(task, ReplayMeasurer([l1]), [tabs[x] for x in ["L2","L7","L8"]], "autotvm", seed, 40, True, corpus=corpus, keep_top=3)
    m = r["measured"]
    print("seed", seed, "with, first 40 (share of optimum):", [round(G[i], 2) for i in m[:40]])
    for i in m[:8]: print("   ", round(G[i],3), kn(i))
    for k in sp.names:
        print("  ", k, collections.Counter(str(kn(i)[k]) for i in m[:40]).most_common(8))
