"""Stop 83: held-out replay of L1, L2, L7, L8 on five CPUs' tables (autotvm with transfer, knobs+corpus), first
design as shipped (diverse=0) or diverse=N (N > 0 needs diverse.patch applied to src/). Usage: replay.py DIVERSE
SEEDS OUT.json [CPUS]"""
import json, sys, time
from pathlib import Path
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
import tensortune.transfer.prior as P

diverse = int(sys.argv[1]); seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
cpus = sys.argv[4].split(",") if len(sys.argv) > 4 else ["znver5", "znver3", "rocketlake", "emeraldrapids", "znver4-no-avx512-no-gfni"]
orig = P.TransferPrior.initial_configs
def patched(self, k=8, per_source=None, lane_variants=True, diverse=diverse):
    return orig(self, k, per_source, lane_variants, diverse)
P.TransferPrior.initial_configs = patched
from tensortune.bench.transfer import run_one
res = json.loads(out.read_text()) if out.exists() else {}
for cpu in cpus:
    d = None if cpu == "znver5" else f"/work/main/results/transfer/tables-{cpu}"
    tables = {n: load_table(n, d) for n in ["L1", "L2", "L7", "L8"]}
    corpus = default_corpus(cpu)
    for held in tables:
        gt = tables[held]
        opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
        for seed in seeds:
            key = f"{cpu}/{held}/{seed}"
            if key in res: continue
            t0 = time.time()
            r = run_one(gt, [tables[x] for x in tables if x != held], "autotvm", seed, 120, True, corpus=corpus)
            c = r["curve"]
            reach = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None)
            res[key] = {"reach": reach, "first8": max(c[:8]) / opt, "final": c[-1] / opt}
            out.write_text(json.dumps(res, indent=0))
            print(key, res[key], f"{time.time()-t0:.1f}s", flush=True)
