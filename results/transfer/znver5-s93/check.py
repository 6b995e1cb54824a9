import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
cpu, held = sys.argv[1].split("/")
d = None if cpu == "znver5" else f"/work/main/results/transfer/tables-{cpu}"
names = ["L1", "L8"] if cpu == "znver4" else ["L1", "L2", "L7", "L8"]
tables = {n: load_table(n, d) for n in names}
gt = tables[held]; opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
for seed in [int(s) for s in sys.argv[2].split(",")]:
    r = run_one(gt, [tables[x] for x in tables if x != held], sys.argv[3] if len(sys.argv) > 3 else "autotvm", seed, 300, True, corpus=default_corpus(cpu))
    c = r["curve"]; print(sys.argv[1], seed, next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None), round(c[-1]/opt, 4), flush=True)
