import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import TransferPrior
held = sys.argv[1] if len(sys.argv) > 1 else "L1"
names = ["L1","L2","L7","L8"]
tables = {n: load_table(n, None) for n in names}
corpus = default_corpus("znver5")
gt = tables[held]
y = np.where(np.isfinite(gt.cost)&(gt.cost>0), gt.task.flops/np.where(gt.cost>0,gt.cost,1), 0)
opt = y.max()
pos = {int(i): k for k, i in enumerate(gt.index)}
print("optimum", opt/1e9, "n", len(y), "n>=95%", int((y>=0.95*opt).sum()))
for seed in [0]:
    pr = TransferPrior.from_tables(gt.task, [tables[n] for n in names if n != held], seed, corpus=corpus)
    print(pr.describe())
    for s, w in sorted(zip(pr.sources, pr.similarity), key=lambda t: -t[1])[:6]:
        print(f"  src {s.name[:50]:50s} w {w:.3f} n {len(s.y)} corpus {s.corpus}")
    for c in pr.initial_configs(diverse=int(sys.argv[2]) if len(sys.argv)>2 else 0):
        i = gt.task.space.index_of(c)
        v = y[pos[i]] / opt if i in pos else float('nan')
        print(f"  first {i:8d} {v:.3f} lanes {pr.features.lanes_of(c)}  {c}")
print("table top:")
order = np.argsort(-y)[:12]
for k in order:
    c = gt.task.space.config(int(gt.index[k]))
    print(f"  {int(gt.index[k]):6d} {y[k]/opt:.3f} {c.indices} {gt.task.space.to_json(c) if hasattr(gt.task.space,'to_json') else ''}")
print([ (k.name, len(k.options) if hasattr(k,'options') else '') for k in gt.task.space.knobs])
src = pr.sources[0]
print("source top mapped:")
n_shape = len(pr.features.shape)
for i in np.argsort(-src.y)[:16]:
    cfg = pr.features.nearest_config(src.mapping_x[i, n_shape:])
    idx = gt.task.space.index_of(cfg)
    print(f"  src y {src.y[i]/src.y.max():.3f} -> {idx} {cfg.indices} {y[pos[idx]]/opt if idx in pos else float('nan'):.3f} valid {gt.task.space.is_valid(cfg)}")
