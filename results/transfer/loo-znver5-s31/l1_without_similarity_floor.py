import numpy as np
import tensortune.transfer.prior as pr
pr.MIN_SIMILARITY = 0.0
from tensortune.bench.transfer import run_one
from tensortune.bench.groundtruth import load_table
from tensortune.core.stats import median, trials_to_reach
t = {n: load_table(n) for n in ("L1", "L2", "L7", "L8")}
held, src = t["L1"], [t["L2"], t["L7"], t["L8"]]
opt = held.task.flops / float(np.min(held.cost[np.isfinite(held.cost)])) / 1e9
for mode, tr, cache in (("without", False, None), ("knobs", True, None), ("schedule", True, "/work/runs/loo/znver5/schedule-features")):
    hits = [trials_to_reach(run_one(held, src, "autotvm", s, 200, tr, schedule_cache=cache)["curve"], 0.95 * opt) for s in range(3)]
    print(mode, hits, median([h if h is not None else float("inf") for h in hits]), flush=True)
