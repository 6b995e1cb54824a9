"""The consensus scores of one held-out layer's mapped plateau configs on the Zen 4 tables (stop 104):
python results/transfer/znver4-s104/cons_l7.py L7 0.03."""
import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
T = "results/transfer/tables-znver4"; held = sys.argv[1]; EPS = float(sys.argv[2])
L = ["L1", "L2", "L7", "L8"]
tabs = {n: load_table(n, T) for n in L}; gt = tabs[held]
prior = TransferPrior.from_tables(gt.task, [tabs[x] for x in L if x != held], 0, corpus=default_corpus("znver4"))
g = gt.task.flops / gt.cost / 1e9; opt = np.max(g[np.isfinite(g)]); pos = {int(i): r for r, i in enumerate(gt.index)}
own = prior.features; space = prior.task.space; n_shape = len(own.shape)
score, nsrc, who = {}, {}, {}
for src, w in zip(prior.sources, prior.similarity):
    ymax = float(np.max(src.y, initial=0.0)); got = set()
    for i in np.argsort(-src.y, kind="stable")[:64]:
        if src.y[i] < (1 - EPS) * ymax: break
        c = own.nearest_config(src.mapping_x[i, n_shape:])
        if not space.is_valid(c): continue
        idx = space.index_of(c)
        if idx in got: continue
        got.add(idx); score[idx] = score.get(idx, 0) + w; who.setdefault(idx, []).append(src.name[-40:] if len(src.name) > 4 else src.name)
    print(src.name[-50:], round(w, 3), "plateau maps to", len(got))
for idx in sorted(score, key=lambda i: -score[i])[:10]:
    print(round(score[idx], 3), round(g[pos[idx]] / opt, 3), who[idx])
