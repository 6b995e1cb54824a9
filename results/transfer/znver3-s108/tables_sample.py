"""Stop 108: does a ground-truth table's ranking hold on this machine today? For each layer given, 30 valid configs
drawn at random (seed 0) plus the table's 3 best are measured again with today's runner, interleaved, in 4 rounds
after one discarded warm-up reading; prints each config's table share and today's share (of the re-measured table
optimum's median), the Spearman rank correlation and the median today/table ratio.
Usage: python tables_sample.py TABLE_DIR LAYER [LAYER ...]"""
import sys

import numpy as np
from scipy.stats import spearmanr

from tensortune.bench.groundtruth import groundtruth_measurer, load_table
from tensortune.core.values import MeasureInput

d = sys.argv[1]
for layer in sys.argv[2:]:
    t = load_table(layer, d)
    ok = np.flatnonzero(np.isfinite(t.cost))
    best = [int(p) for p in np.argsort(t.cost)[:3]]
    rest = [int(p) for p in np.random.default_rng(0).choice(np.setdiff1d(ok, best), 30, replace=False)]
    pos = best + rest
    task = t.task
    costs = {p: [] for p in pos}
    with groundtruth_measurer(task) as m:
        m.measure([MeasureInput(task, task.space.config(int(t.index[pos[0]])))])  # warm-up, discarded
        for _ in range(4):
            for p, r in zip(pos, m.measure([MeasureInput(task, task.space.config(int(t.index[p]))) for p in pos])):
                costs[p].append(r.cost if r.ok else float("inf"))
    m0 = float(np.median(costs[pos[0]]))
    tab = np.array([t.optimum_cost / t.cost[p] for p in pos])
    now = np.array([m0 / float(np.median(costs[p])) for p in pos])
    print(f"{layer}: table optimum {t.optimum_gflops:.0f} GFLOP/s, today {task.flops / m0 / 1e9:.0f}; "
          f"Spearman {spearmanr(tab, now)[0]:.2f}; today/table share, median {np.median(now / tab):.2f} "
          f"(range {np.min(now / tab):.2f}-{np.max(now / tab):.2f}); today above 0.95: {int(np.sum(now >= 0.95))} of {len(pos)}")
    for p, a, b in sorted(zip(pos, tab, now), key=lambda x: -x[1]):
        print(f"  index {int(t.index[p]):5d} table {a:.2f} today {b:.2f}")
    sys.stdout.flush()
