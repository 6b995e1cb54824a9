"""Stop 108: which entries of this CPU's ground-truth tables did a runner time first (its OpenBLAS threads then
spun beside the timing, fixed in 8a1a520), and were they under-read? A table is a grid in index order; a runner
times the first config, restarts after 256 kernels (``RUNNER_RECYCLE_KERNELS``) and after a kernel that killed
it, so those entries are candidates (assumed order: index order, every built config run; resumes not known).
Each candidate, the table's optimum and its second best are measured again with today's runner, interleaved, in
5 rounds after one discarded warm-up reading; shares are of the re-measured optimum's median.
Usage: python tables_first.py [TABLE_DIR]"""
import sys

import numpy as np

from tensortune.bench.groundtruth import groundtruth_measurer, load_table
from tensortune.core.values import MeasureInput

RUN = {0, 4, 5, 7, 8, 9}  # error kinds of configs that reached the runner (built)
d = sys.argv[1] if len(sys.argv) > 1 else "../tables-znver3"
for layer in ("L1", "L2", "L7", "L8"):
    t = load_table(layer, d)
    order = np.argsort(t.index)
    cand, ran = [], 0
    restart = True
    for p in order:
        if int(t.error[p]) not in RUN:
            continue
        if restart or ran % 256 == 0:
            cand.append(int(p))
        restart = int(t.error[p]) in (4, 7)
        ran += 1
    best = np.argsort(t.cost)[:2]
    pos = list(dict.fromkeys([int(best[0]), int(best[1])] + cand))
    task = t.task
    share_t = {p: float(t.optimum_cost / t.cost[p]) if np.isfinite(t.cost[p]) else 0.0 for p in pos}
    med = {p: [] for p in pos}
    with groundtruth_measurer(task) as m:
        m.measure([MeasureInput(task, task.space.config(int(t.index[pos[0]])))])  # warm-up, discarded
        for _ in range(5):
            res = m.measure([MeasureInput(task, task.space.config(int(t.index[p]))) for p in pos])
            for p, r in zip(pos, res):
                med[p].append(r.cost if r.ok else float("inf"))
    m0 = float(np.median(med[pos[0]]))
    print(f"{layer}: optimum {t.optimum_gflops:.0f} GFLOP/s in the table, {task.flops / m0 / 1e9:.0f} now")
    for p in pos:
        tag = "optimum" if p == best[0] else "2nd best" if p == best[1] else f"first of a runner (grid position {list(order).index(p)})"
        print(f"  index {int(t.index[p]):5d} {tag:40s} table {share_t[p]:.2f}  now {m0 / float(np.median(med[p])):.2f}", flush=True)
