"""Stop 92: replay of the cells whose first design the axis variant changes (AXIS_VARIANT in transfer/prior.py), autotvm
with transfer, knobs+corpus, as shipped (probes on) with and without the variant (none: without transfer). Usage:
axis.py on|off|none SEEDS OUT.json
Env: TRIALS (300), CELLS (cpu/layer,...), RECIPE (autotvm). Reach = first measurement at >= 95% of the table's optimum."""
import functools, json, os, sys, time
from pathlib import Path
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import TransferPrior

mode = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
if mode == "off":
    TransferPrior.initial_configs = functools.partialmethod(TransferPrior.initial_configs, axis_variant=False)
TRIALS = int(os.environ.get("TRIALS", "300")); RECIPE = os.environ.get("RECIPE", "autotvm")
CELLS = os.environ.get("CELLS", "znver4/L1,znver4-no-avx512-no-gfni/L1,znver3/L1,znver5/L1,emeraldrapids/L1").split(",")
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
        t0 = time.time()
        r = run_one(gt, [tables[x] for x in tables if x != held], RECIPE, seed, TRIALS, mode != "none",
                    corpus=default_corpus(cpu))
        c = r["curve"]
        reach = next((i + 1 for i, v in enumerate(c) if v >= 0.95 * opt), None)
        res[key] = {"reach": reach, "first8": round(max(c[:8]) / opt, 4), "final": round(c[-1] / opt, 4)}
        out.write_text(json.dumps(res, indent=0))
        print(mode, key, res[key], f"{time.time()-t0:.1f}s", flush=True)
