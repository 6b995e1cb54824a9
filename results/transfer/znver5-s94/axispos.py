"""Experiment (stop 94): where in the first design the turned register tile (AXIS_VARIANT) goes.
usage: axispos.py shipped|next|lanes SEEDS OUT.json    env CELLS, TRIALS (300), RECIPE (autotvm)
  shipped: the code as it is (before stop 94 the variant took the last place; since, 'lanes')
  next:    the variant moved to just after the config it turns
  lanes:   the variant moved to just after the turned config's lane variants (where there are any)
Writes, per cell and seed, the measurements to 95% of the table's optimum, and the first design's positions."""
import json, os, sys, time
from pathlib import Path
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import TransferPrior

mode = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
assert mode in ("shipped", "next", "lanes")
FIRST = []
orig = TransferPrior.initial_configs


def initial_configs(self, k=8, per_source=None, lane_variants=True, axis_variant=True):
    got = orig(self, k, per_source, lane_variants, axis_variant)
    base = orig(self, k, per_source, lane_variants, False)
    new = [c for c in got if c not in base]  # the turned config (the shipped code since stop 94 places it itself)
    turned = new[0] if new and axis_variant else None
    if turned is not None and mode != "shipped":
        assert got[-1] == turned, "run next/lanes on the code before stop 94"
        got = got[:-1]
        own = self.features
        # the config it turns: the one whose axis_variant it is
        src = next(i for i, c in enumerate(got) if own.axis_variant(c) == turned)
        at = src + 1
        if mode == "lanes":
            lanes = own.lane_variants(got[src])
            while at < len(got) and got[at] in lanes:
                at += 1
        got.insert(at, turned)
    FIRST.append({"turned_at": None if turned is None else got.index(turned) + 1, "k": len(got)})
    return got


TransferPrior.initial_configs = initial_configs
TRIALS = int(os.environ.get("TRIALS", "300")); RECIPE = os.environ.get("RECIPE", "autotvm")
CELLS = os.environ.get("CELLS", "znver4/L1").split(",")
LAYERS = {"znver4": ["L1", "L8"]}
TABLES = Path(__file__).resolve().parents[1]
res = json.loads(out.read_text()) if out.exists() else {}
for cell in CELLS:
    cpu, held = cell.split("/")
    d = None if cpu == "znver5" else str(TABLES / f"tables-{cpu}")
    tables = {n: load_table(n, d) for n in LAYERS.get(cpu, ["L1", "L2", "L7", "L8"])}
    gt = tables[held]
    opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
    for seed in seeds:
        key = f"{cell}/{seed}"
        if key in res:
            continue
        t0 = time.time(); FIRST.clear()
        r = run_one(gt, [tables[x] for x in tables if x != held], RECIPE, seed, TRIALS, True,
                    corpus=default_corpus(cpu))
        c = r["curve"]
        reach = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None)
        res[key] = {"reach": reach, "final": round(c[-1] / opt, 4), "first": list(FIRST)}
        out.write_text(json.dumps(res, indent=0))
        print(mode, key, res[key], f"{time.time()-t0:.1f}s", flush=True)
