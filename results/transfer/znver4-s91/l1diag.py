# Stop 91: which knobs L1's 27 configs within 95% share on this CPU, and which the transferred autotvm run picks first
# (replay on results/transfer/tables-znver4, sources L8 + the znver4 corpus, as loo.sh). Output: l1diag.txt
import numpy as np, collections
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import _search
from tensortune.measure.replay import ReplayMeasurer
from tensortune.transfer.corpus import default_corpus
T="results/transfer/tables-znver4"
l1, l8 = load_table("L1", T), load_table("L8", T)
corpus = default_corpus("znver4")
task = l1.task; sp = task.space
g = l1.gflops; opt = g.max()
G = {int(i): float(v)/opt for i, v in zip(l1.index, g)}
kn = lambda i: sp.values(sp.config(int(i)))
order = np.argsort(-g)
top = [int(l1.index[p]) for p in order[:27]]
print("knob names", sp.names)
for k in sp.names:
    print(k, "top27:", collections.Counter(str(kn(i)[k]) for i in top).most_common(4))
for seed in (0, 2):
    r = _search(task, ReplayMeasurer([l1]), [l8], "autotvm", seed, 40, True, corpus=corpus, keep_top=3)
    m = r["measured"]
    print("seed", seed, "with, first 40 (share of optimum):", [round(G[i], 2) for i in m[:40]])
    for k in sp.names:
        print("  ", k, collections.Counter(str(kn(i)[k]) for i in m[:40]).most_common(3))
