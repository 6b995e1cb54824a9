# Stop 71 probe: the lane variants appended after the eight mapped configs (not in their places), autotvm, seeds 0-5.
# Usage: python append.py TABLES_DIR LAYER. Output: "L2 tables-znver4-no-avx512-no-gfni append [20, None, 19, 20, None, 18]"
import sys, statistics
from concurrent.futures import ProcessPoolExecutor
from functools import partialmethod
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus
WITH = P.TransferPrior.initial_configs
def append(self, k=8, per_source=None, lane_variants=True):
    base = WITH(self, k, per_source, lane_variants=False)
    if not base: return base
    seen = {self.task.space.index_of(c) for c in base}
    return base + [c for c in self.features.lane_variants(base[0]) if self.task.space.index_of(c) not in seen]
def job(a):
    T, held, v, seed = a
    tabs = {n: load_table(n, T) for n in ("L1","L2","L7","L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    P.TransferPrior.initial_configs = append if v == "append" else WITH
    r = run_one(tabs[held], [t for n, t in tabs.items() if n != held], "autotvm", seed, 120, True, corpus=corpus)
    return a, trials_to_reach(r["curve"], 0.95 * float(tabs[held].optimum_gflops), rel_tol=1e-9)
if __name__ == "__main__":
    T, held = sys.argv[1], sys.argv[2]
    jobs = [(T, held, "append", s) for s in range(6)]
    with ProcessPoolExecutor(2) as ex:
        res = [n for _, n in ex.map(job, jobs)]
    print(held, T.split('/')[-1], "append", res)
