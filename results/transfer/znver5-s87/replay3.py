"""Stop 87: as stop 86's replay2.py, but a knob is probed only where the task's own measured (ok) configs all hold
the incumbent's value of it (CONTRAST=1; no own contrast on that knob yet). PROBE = max probes per plan; 0 = as shipped. Usage: replay2.py PROBE SEEDS OUT.json [CPUS] [transfer|none]"""
import json, sys, time
from pathlib import Path
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.strategies.model_based import ModelBasedStrategy
from tensortune.space import Config

probe = int(sys.argv[1]); seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
cpus = sys.argv[4].split(",") if len(sys.argv) > 4 and sys.argv[4] != "all" else ["znver5", "znver3", "rocketlake", "emeraldrapids", "znver4-no-avx512-no-gfni"]
import os
ONCE = os.environ.get("ONCE") == "1"
CONTRAST = os.environ.get("CONTRAST") == "1"
TRIALS = int(os.environ.get("TRIALS", "120"))
LEAD = int(os.environ.get("LEAD", "0"))  # probes come after the plan's first LEAD model picks
CELLS = os.environ.get("CELLS")  # e.g. znver5/L1,znver3/L2: only these cells
transfer = not (len(sys.argv) > 5 and sys.argv[5] == "none")
orig_sample = ModelBasedStrategy.sample
def sample(self, cands, rnd):
    if not probe or not self.plan_first:
        return orig_sample(self, cands, rnd)
    ys = np.array(self.ys)
    inc = self.xs[int(np.argmax(ys))]
    probes = []
    if getattr(self, "_probed", None) != inc and not (ONCE and getattr(self, "_probed", None) is not None):
        self._probed = inc
        per = []
        ok = [x for x, y in zip(self.xs, self.ys) if y > 0]
        for pos, r in enumerate(self.space.radices):
            if CONTRAST and any(x.indices[pos] != inc.indices[pos] for x in ok): continue
            alts = [Config(inc.indices[:pos] + (v,) + inc.indices[pos + 1:]) for v in range(r) if v != inc.indices[pos]]
            alts = [c for c in alts if c not in self.visited and self.space.is_valid(c)]
            if not alts: continue
            s = self.score(self.space.indices(alts))
            j = int(np.argmax(s)); per.append((float(s[j]), alts[j]))
        per.sort(key=lambda t: -t[0])
        probes = [c for _, c in per[:probe]]
    rest = orig_sample(self, [(c, v) for c, v in cands if c not in probes], rnd)
    rest = [c for c in rest if c not in probes]
    return (rest[:LEAD] + probes + rest[LEAD:])[: self.plan_size]
ModelBasedStrategy.sample = sample
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
            if CELLS and f"{cpu}/{held}" not in CELLS.split(","): continue
            if key in res: continue
            t0 = time.time()
            r = run_one(gt, [tables[x] for x in tables if x != held], "autotvm", seed, TRIALS, transfer, corpus=corpus)
            c = r["curve"]
            reach = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None)
            res[key] = {"reach": reach, "first8": max(c[:8]) / opt, "final": c[-1] / opt}
            out.write_text(json.dumps(res, indent=0))
            print(key, res[key], f"{time.time()-t0:.1f}s", flush=True)
