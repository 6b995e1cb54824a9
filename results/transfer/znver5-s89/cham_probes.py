"""Stop 89: chameleon with transfer, with and without the incumbent probes that greedy recipes get since stop 87
(TRANSFER_PROBES = 8 after the plan's first TRANSFER_PROBE_LEAD = 2 picks). PROBES=1 forces them on for an adaptive
sampler by wrapping ModelBasedStrategy.__init__; PROBES=0 leaves the package as it is. Replay, knobs+corpus.
Usage: PROBES=0|1 [TRIALS=300] [LAYERS=L1,...] cham_probes.py SEEDS OUT.json [CPUS] [RECIPE]"""
import json
import os
import sys
import time
from pathlib import Path

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.strategies.model_based import ModelBasedStrategy
from tensortune.transfer.corpus import default_corpus
from tensortune.tuners.recipes import TRANSFER_PROBE_LEAD, TRANSFER_PROBES

seeds = [int(s) for s in sys.argv[1].split(",")]
out = Path(sys.argv[2])
cpus = sys.argv[3].split(",") if len(sys.argv) > 3 else ["znver5", "znver3", "rocketlake", "emeraldrapids",
                                                          "znver4-no-avx512-no-gfni"]
recipe = sys.argv[4] if len(sys.argv) > 4 else "chameleon"
TRIALS = int(os.environ.get("TRIALS", "300"))
if os.environ.get("PROBES") == "1":
    init = ModelBasedStrategy.__init__

    def patched(self, *a, **k):
        init(self, *a, **k)
        if self.plan_first and not self.probes:  # a transferred run without probes (the adaptive sampler's)
            self.probes, self.probe_lead = TRANSFER_PROBES, TRANSFER_PROBE_LEAD

    ModelBasedStrategy.__init__ = patched
res = json.loads(out.read_text()) if out.exists() else {}
for cpu in cpus:
    d = None if cpu == "znver5" else f"/work/main/results/transfer/tables-{cpu}"
    tables = {n: load_table(n, d) for n in ["L1", "L2", "L7", "L8"]}
    corpus = default_corpus(cpu)
    for held, gt in tables.items():
        if os.environ.get("LAYERS") and held not in os.environ["LAYERS"].split(","):
            continue
        opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
        for seed in seeds:
            key = f"{cpu}/{held}/{seed}"
            if key in res:
                continue
            t0 = time.time()
            r = run_one(gt, [tables[x] for x in tables if x != held], recipe, seed, TRIALS, True, corpus=corpus)
            c = r["curve"]
            reach = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None)
            res[key] = {"reach": reach, "first8": max(c[:8]) / opt, "final": c[-1] / opt}
            out.write_text(json.dumps(res, indent=0))
            print(key, res[key], f"{time.time() - t0:.1f}s", flush=True)
