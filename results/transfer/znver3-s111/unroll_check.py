"""Stop 111: each transferred first-design config of held-out L2 and L1 (l1diag.py's "init" rows) with
auto_unroll_max_step flipped (0 <-> 512): what the multi-pass table reads for it, share of the optimum's median.
Run from the repository root: python results/transfer/znver3-s111/unroll_check.py > .../unroll-check.txt
(this stop ran the same code inline)."""
from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus

T = "results/transfer/tables-znver3-s110"
for held, others in (("L2", "L1,L7,L8"), ("L1", "L2,L7,L8")):
    tabs = {n: load_table(n, T) for n in [held] + others.split(",")}
    gt = tabs[held]; sp = gt.task.space; g = gt.gflops; opt = g.max()
    prior = TransferPrior.from_tables(gt.task, [tabs[o] for o in others.split(",")], 0,
                                      corpus=default_corpus(gt.meta["machine"]["llvm_cpu"]))
    print(held, "optimum", round(opt, 1), "GFLOP/s; unroll of the 10 best:",
          [sp.values(sp.config(int(gt.index[i])))["auto_unroll_max_step"] for i in (-g).argsort()[:10]])
    for c in prior.initial_configs():
        v = sp.values(c)
        w = dict(v, auto_unroll_max_step=512 if v["auto_unroll_max_step"] == 0 else 0)
        p, q = gt.position(sp.index_of(c)), gt.position(sp.index_of(sp.from_json(w)))
        print(f"  first design unroll {v['auto_unroll_max_step']:3d}: {g[p] / opt:.3f}   flipped to "
              f"{w['auto_unroll_max_step']:3d}: {'not in table' if q is None else round(g[q] / opt, 3)}")
