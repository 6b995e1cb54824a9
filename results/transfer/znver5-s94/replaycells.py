"""The replay loop that axispos.py and pairs.py share: for each cell (CPU/held-out layer) and seed, one run_one with
transfer (the other tables and the CPU's corpus as sources), recorded in OUT.json with the measurements to 95% of
the table's optimum (``tensortune.core.stats.trials_to_reach``); a rerun resumes. env CELLS, TRIALS (300), RECIPE."""
import json, os, time
from pathlib import Path

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer.corpus import default_corpus

LAYERS = {"znver4": ["L1", "L8"]}  # the Zen 4 tables hold these two only
TABLES = Path(__file__).resolve().parents[1]


def run_cells(label, seeds, out, extra, default_cells="znver4/L1"):
    """``extra()`` gives the run's own fields (read after the run, cleared by the caller's hooks before it: pass a
    function that returns a copy of what the hooks collected and clears it)."""
    trials = int(os.environ.get("TRIALS", "300")); recipe = os.environ.get("RECIPE", "autotvm")
    res = json.loads(out.read_text()) if out.exists() else {}
    for cell in os.environ.get("CELLS", default_cells).split(","):
        cpu, held = cell.split("/")
        d = None if cpu == "znver5" else str(TABLES / f"tables-{cpu}")
        tables = {n: load_table(n, d) for n in LAYERS.get(cpu, ["L1", "L2", "L7", "L8"])}
        gt = tables[held]
        opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
        for seed in seeds:
            key = f"{cell}/{seed}"
            if key in res:
                continue
            t0 = time.time(); extra()  # clear what an earlier run left
            c = run_one(gt, [tables[x] for x in tables if x != held], recipe, seed, trials, True,
                        corpus=default_corpus(cpu))["curve"]
            res[key] = {"reach": trials_to_reach(c, 0.95 * opt), "final": round(c[-1] / opt, 4), **extra()}
            out.write_text(json.dumps(res, indent=0))
            print(label, key, res[key], f"{time.time()-t0:.1f}s", flush=True)
