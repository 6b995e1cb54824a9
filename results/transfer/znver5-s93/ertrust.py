import numpy as np, sys
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import _search
from tensortune.measure.replay import ReplayMeasurer
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P
cpu, held = sys.argv[1], sys.argv[2]
T=f"results/transfer/tables-{cpu}" if cpu != "znver5" else None
names = ["L1","L8"] if cpu == "znver4" else ["L1","L2","L7","L8"]
tabs = {n: load_table(n, T) for n in names}
l1 = tabs[held]; g = l1.gflops; opt = g.max()
G = {int(i): float(v)/opt for i, v in zip(l1.index, g)}
orig = P.PriorCostModel.fit
def fit(self, x, y):
    orig(self, x, y)
    print(len(y), len(self.prior.sources), "trust", [f"{s.name[:18]}:{self.prior.similarity[j]:.2f}:{t:.2f}" for j, (s, t) in enumerate(zip(self.prior.sources, self.trust)) ])
P.PriorCostModel.fit = fit
r = _search(l1.task, ReplayMeasurer([l1]), [tabs[x] for x in names if x != held], "autotvm", int(sys.argv[3]), 160, True, corpus=default_corpus(cpu), keep_top=3)
m = r["measured"]; c = np.maximum.accumulate([G[i] for i in m])
print("best at 16,32,64,96,128,160:", [round(c[min(k, len(c))-1],3) for k in (16,32,64,96,128,160)])
