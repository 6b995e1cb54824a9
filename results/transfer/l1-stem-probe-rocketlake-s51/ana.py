"""L1 on rocketlake: how many table configs reach 95%, what the corpus stem's best configs map to."""
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import Corpus, default_corpus_path
T = "/work/main/results/transfer/tables-rocketlake"
l1 = load_table("L1", T)
g = l1.gflops
opt = g.max()
print("L1 configs", l1.n, "space", l1.task.space.size if hasattr(l1.task.space,"size") else "?", "opt", round(opt, 1), ">=95%:", int((g >= 0.95 * opt).sum()),
      ">=90%:", int((g >= 0.9 * opt).sum()), ">=80%:", int((g >= 0.8 * opt).sum()))
sp = l1.task.space
print("knobs", [(k.name, len(k.options) if hasattr(k, "options") else k) for k in sp.knobs])
for p in np.argsort(-g)[:8]:
    print(" top", round(g[p], 1), sp.config(int(l1.index[p])).to_json() if hasattr(sp.config(int(l1.index[p])), "to_json") else sp.config(int(l1.index[p])))
corpus = Corpus.load(default_corpus_path("rocketlake"))
srcs = [load_table(x, T) for x in ("L2", "L7", "L8")]
prior = TransferPrior.from_tables(l1.task, srcs, 0, corpus=corpus)
print("sources", [(s.name, round(v, 3), round(float(s.y.max()) / 1e9, 1), len(s.y)) for s, v in zip(prior.sources, prior.similarity)])
init = prior.initial_configs()
for c in init:
    i = sp.index_of(c)
    pos = l1._pos.get(int(i))
    print(" init", c, "->", None if pos is None else round(g[pos] / opt, 3))
