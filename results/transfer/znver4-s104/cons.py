"""A first design with, at place AT, the M configs most agreed on by the sources' plateaus (their configs within EPS
of their best, mapped), weighted by similarity; printed beside the shipped one for the 24 replay cells. Tried at
stop 104, not adopted. Run from the repository root: python results/transfer/znver4-s104/cons.py EPS M AT."""
import os, sys, numpy as np
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fd import cells
from tensortune.transfer import TransferPrior
EPS = float(sys.argv[1]); M = int(sys.argv[2]); AT = int(sys.argv[3])
def consensus(prior, k=8):
    base = TransferPrior.initial_configs(prior, k)
    own = prior.features; space = prior.task.space; n_shape = len(own.shape)
    score, cfgof, nsrc = {}, {}, {}
    for src, w in zip(prior.sources, prior.similarity):
        ymax = float(np.max(src.y, initial=0.0))
        if ymax <= 0: continue
        got = set()
        for i in np.argsort(-src.y, kind="stable")[:64]:
            if src.y[i] < (1 - EPS) * ymax: break
            c = own.nearest_config(src.mapping_x[i, n_shape:])
            if not space.is_valid(c): continue
            idx = space.index_of(c)
            if idx in got: continue
            got.add(idx); cfgof[idx] = c
            score[idx] = score.get(idx, 0.0) + w; nsrc[idx] = nsrc.get(idx, 0) + 1
    agreed = sorted((i for i in score if nsrc[i] >= 2), key=lambda i: -score[i])[:M]
    add = [cfgof[i] for i in agreed if cfgof[i] not in base]
    out = base[:AT] + add + base[AT:]
    return out[:k]
res = cells(consensus); base = cells()
for key in res:
    print(key, base[key][0], '->', res[key][0], [round(f, 2) for f in res[key][1]])
