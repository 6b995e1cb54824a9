import sys, numpy as np
sys.argv = ["pairs.py", "on", "0", "/tmp/pdiag.json"]
import os
src = open("/work/main/results/transfer/znver5-s94/pairs.py").read()
src = src.split("ModelBasedStrategy.sample = sample")[0]
exec(compile(src, "pairs", "exec"))
from tensortune.bench.groundtruth import load_table
cell = os.environ["CELL"]; cpu, held = cell.split("/")
d = None if cpu == "znver5" else f"/work/main/results/transfer/tables-{cpu}"
tables = {n: load_table(n, d) for n in ["L1", "L2", "L7", "L8"]}
gt = tables[held]; sp = gt.task.space
at = {int(i): j for j, i in enumerate(gt.index)}
share = lambda c: round(float(gt.gflops[at[sp.index_of(c)]] / gt.optimum_gflops), 3) if sp.index_of(c) in at else None
_pp = pair_probes
def pp(space, inc, score, exclude, limit):
    out = _pp(space, inc, score, exclude, 28)
    print("incumbent", share(inc), "pairs (all 28 best, by score):", [(share(c)) for c in out])
    return out[:limit]
pair_probes = pp
def sample2(self, cands, rnd):
    return sample(self, cands, rnd)
ModelBasedStrategy.sample = sample
import numpy as np
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
r = run_one(gt, [tables[x] for x in tables if x != held], "autotvm", 0, 60, True, corpus=default_corpus(cpu))
