import numpy as np, sys
from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
held = load_table(sys.argv[1] if len(sys.argv)>1 else "L1")
names = [x for x in ("L1","L2","L7","L8") if x != held.name]
others = [load_table(x) for x in names]
corpus = default_corpus("znver5")
gt = held; sp = gt.task.space
g = gt.gflops; opt = gt.optimum_gflops
print(gt.task.workload, "space", sp.size if hasattr(sp,'size') else '?', "table", gt.n, "opt GF", round(opt,1), "cfg", gt.optimum_config)
print("configs within 95%:", gt.configs_within(0.95), "within 90%", gt.configs_within(0.9))
order = np.argsort(-g)
for p in order[:8]:
    print("  top", int(gt.index[p]), sp.config(int(gt.index[p])), round(g[p]/opt,3))
print([(k.name,[k.value(j) for j in range(len(k))]) for k in sp.knobs])
for seed in range(2):
    prior = TransferPrior.from_tables(gt.task, others, seed, corpus=corpus)
    print(prior.describe())
    for c in prior.initial_configs():
        i = sp.index_of(c)
        p = gt.position(i) if i is not None else None
        print(seed, i, c, round(g[p]/opt,3) if p is not None else 'not in table')
