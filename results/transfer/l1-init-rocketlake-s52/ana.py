"""Why held-out L1 reaches 95% in 20 measurements with stop 51's probe corpus and 63 with stop 52's rebuilt one
(both: the 11x11/4 stem tuned from 64 to 256, seed 0): the stem's best configs in each, what they map to on L1
(the first configs a run measures), and L1's replay with k initial configs taken from the one source."""
import statistics
import sys

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import _search
from tensortune.core.stats import trials_to_reach
from tensortune.measure.replay import ReplayMeasurer
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import Corpus, default_corpus_path

T = "/work/main/results/transfer/tables-rocketlake"
l1 = load_table("L1", T)
g, sp = l1.gflops, l1.task.space
opt = float(g.max())
srcs = [load_table(x, T) for x in ("L2", "L7", "L8")]
corpora = {"probe (s51)": Corpus.load(sys.argv[1]), "rebuilt (s52)": Corpus.load(default_corpus_path("rocketlake"))}
for label, corpus in corpora.items():
    corpus.install_task_files()
    prior = TransferPrior.from_tables(l1.task, srcs, 0, corpus=corpus)
    for s in prior.sources:
        top = sorted(s.y, reverse=True)[:8]
        print(label, "source", s.name[-60:], "records", len(s.y), "top-8 GFLOP/s", [round(v / 1e9, 1) for v in top])
    for k in (2, 8):
        firsts = prior.initial_configs(8, per_source=k)
        shares = []
        for c in firsts:
            pos = l1._pos.get(int(sp.index_of(c)))
            shares.append(None if pos is None else round(float(g[pos]) / opt, 3))
        print(label, f"per_source={k}: first configs on L1 (share of optimum):", shares, flush=True)

orig = TransferPrior.initial_configs
for label, corpus in corpora.items():
    for k in (2, 8):
        TransferPrior.initial_configs = lambda self, kk=8, per_source=2, _k=k: orig(self, kk, per_source=_k)
        for recipe in ("autotvm", "chameleon"):
            reach = [trials_to_reach(_search(l1.task, ReplayMeasurer([l1]), srcs, recipe, seed, 120, True,
                                             corpus=corpus)["curve"], 0.95 * opt, rel_tol=1e-9) or float("inf")
                     for seed in range(9)]
            print(label, f"per_source={k}", recipe, "with:", reach, "median", statistics.median(reach), flush=True)
TransferPrior.initial_configs = orig
