import numpy as np, sys
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import TransferPrior
layer = sys.argv[1] if len(sys.argv) > 1 else "L1"
gt = load_table(layer)
task = gt.task
others = [load_table(x) for x in ("L1","L2","L7","L8") if x != layer]
prior = TransferPrior.from_tables(task, others, seed=0, corpus=default_corpus())
y = np.where(np.isfinite(gt.cost)&(gt.cost>0), task.flops/np.where(gt.cost>0,gt.cost,1), 0)
best = y.max(); print("table", len(y), "best GFLOP/s", best/1e9)
pos = {int(i): j for j, i in enumerate(gt.index)}
order = np.argsort(-y)
rank = {int(gt.index[j]): r for r, j in enumerate(order)}
for s, w in zip(prior.sources, prior.similarity):
    print(f"source {s.name[:90]} sim {w:.3f} n {len(s.y)} best {s.y.max()/1e9:.0f}")
for c in prior.initial_configs():
    i = task.space.index_of(c)
    j = pos.get(i)
    print(task.space.to_json(c) if hasattr(task.space,'to_json') else c, "->", None if j is None else f"{y[j]/best:.2f} rank {rank[i]}")
print("top of table:")
for j in order[:8]:
    print(task.space.config(int(gt.index[j])), f"{y[j]/best:.3f}")
print("top values:")
for j in order[:6]:
    print(task.space.to_json(task.space.config(int(gt.index[j]))), f"{y[j]/best:.3f}")
print(task.template, [ (k.name, len(k.options)) for k in task.space.knobs])
from tensortune.transfer.corpus import default_corpus
corp = default_corpus()
for tk, tg, name in corp.tasks():
    if "k=48,kernel=11x11" in tk:
        recs = sorted([r for r in corp.records(tk, tg) if r.ok], key=lambda r: r.cost)[:6]
        for r in recs: print(tk.split('|')[0], r.config, r.cost)
