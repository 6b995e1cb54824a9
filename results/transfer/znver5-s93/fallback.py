"""Experiment: when every (non-twin) source is distrusted, plan random configs until FLOOR own outcomes.
usage: fallback.py on|off SEEDS OUT.json   env CELLS, TRIALS, DISTRUST, FLOOR"""
import json, os, sys, time
from pathlib import Path
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.strategies.model_based import ModelBasedStrategy
mode = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
MIN = int(os.environ.get("MIN", "24")); DISTRUST = float(os.environ.get("DISTRUST", "0.25")); FLOOR = int(os.environ.get("FLOOR", "64"))
TRIGGERED = []
orig = ModelBasedStrategy.sample
def sample(self, cands, rnd):
    m = self.model
    trust = getattr(m, "trust", None)
    if trust is not None and len(self.ys) < FLOOR:
        tw = m.prior.twin
        non = [t for t, w in zip(trust, tw) if not w]
        if non and not any(tw) and len(self.ys) >= MIN and max(non) < DISTRUST:
            TRIGGERED.append(len(self.ys))
            if mode == "on":
                n = min(self.plan_size, FLOOR - len(self.ys))
                return self.space.sample(n, self.rng, exclude=set(self.visited))
            if mode == "half":
                n = min(self.plan_size // 2, FLOOR - len(self.ys))
                model = orig(self, cands, rnd)
                rand = self.space.sample(n, self.rng, exclude=set(self.visited) | set(model))
                return (model[: self.plan_size - n] + rand)
    return orig(self, cands, rnd)
ModelBasedStrategy.sample = sample
TRIALS = int(os.environ.get("TRIALS", "300")); RECIPE = os.environ.get("RECIPE", "autotvm")
CELLS = os.environ.get("CELLS", "emeraldrapids/L1").split(",")
LAYERS = {"znver4": ["L1", "L8"]}
res = json.loads(out.read_text()) if out.exists() else {}
for cell in CELLS:
    cpu, held = cell.split("/")
    d = None if cpu == "znver5" else f"/work/main/results/transfer/tables-{cpu}"
    tables = {n: load_table(n, d) for n in LAYERS.get(cpu, ["L1", "L2", "L7", "L8"])}
    gt = tables[held]
    opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
    for seed in seeds:
        key = f"{cell}/{seed}"
        if key in res:
            continue
        t0 = time.time(); TRIGGERED.clear()
        r = run_one(gt, [tables[x] for x in tables if x != held], RECIPE, seed, TRIALS, mode != "none",
                    corpus=default_corpus(cpu))
        c = r["curve"]
        reach = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None)
        res[key] = {"reach": reach, "final": round(c[-1] / opt, 4), "triggered": list(TRIGGERED)}
        out.write_text(json.dumps(res, indent=0))
        print(mode, key, res[key], f"{time.time()-t0:.1f}s", flush=True)
