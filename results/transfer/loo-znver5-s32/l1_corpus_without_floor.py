import sys
import numpy as np
import tensortune.transfer.prior as P
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach, median
from tensortune.transfer.corpus import default_corpus
P.MIN_SIMILARITY = float(sys.argv[1])
c = default_corpus("znver5")
held = load_table("L1"); others = [load_table(x) for x in ("L2", "L7", "L8")]
opt = held.task.flops / np.min(held.cost[np.isfinite(held.cost)]) / 1e9
for mode in ("without", "corpus"):
    hits = []
    for seed in (0, 1, 2):
        r = run_one(held, others, "autotvm", seed, 200, mode != "without", corpus=c if mode == "corpus" else None)
        hits.append(trials_to_reach(r["curve"], 0.95 * opt)); src = r["sources"]
    print(mode, hits, median([h if h is not None else float("inf") for h in hits]), [s[-50:] for s in src], flush=True)
