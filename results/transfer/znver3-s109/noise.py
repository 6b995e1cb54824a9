"""Stop 109: what kind of noise is it? From the six-pass L2 database: per config, the spread of its six readings;
the repeats inside one reading; and whether a reading's error (over the config's six-pass median) is shared by the
configs timed next to it (a phase of the host, which an anchor config per batch could remove) or is its own.
Usage: python noise.py DB (read-only; cheap)."""

import json
import sqlite3
import sys

import numpy as np

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("select run_id, config_index, cost, costs, timestamp from records where kind='trial' "
                  "order by id").fetchall()
runs = sorted({r[0] for r in rows})
cost = {(r[0], int(r[1])): r[2] for r in rows}
idx = sorted({int(r[1]) for r in rows})
pc = np.array([[cost[(run, i)] for run in runs] for i in idx])
med = np.median(pc, axis=1)
spread = pc.max(axis=1) / pc.min(axis=1)
cv = pc.std(axis=1) / pc.mean(axis=1)
print(f"{len(idx)} configs x {len(runs)} passes")
print(f"per config, slowest over fastest of its six readings: median {np.median(spread):.2f}, "
      f"quartiles {np.percentile(spread, 25):.2f}-{np.percentile(spread, 75):.2f}, max {spread.max():.2f}")
print(f"per config, coefficient of variation of the six readings: median {np.median(cv):.3f}")
top = np.argsort(med)[:20]
print(f"the 20 fastest configs (six-pass median): spread median {np.median(spread[top]):.2f}, cv median "
      f"{np.median(cv[top]):.3f}")
# within one reading: the three repeats
rep = []
for r in rows:
    c = json.loads(r[3])
    if len(c) >= 2 and all(x > 0 for x in c):
        rep.append(max(c) / min(c))
print(f"within one reading, slowest over fastest of its repeats: median {np.median(rep):.3f}, "
      f"90th percentile {np.percentile(rep, 90):.3f}")
# phase structure: log error of each reading over its config's median, in time order per pass
pos = {i: k for k, i in enumerate(idx)}
for run in runs:
    seq = [(r[4], np.log(r[2] / med[pos[int(r[1])]])) for r in rows if r[0] == run]
    e = np.array([s[1] for s in seq])
    lag1 = np.corrcoef(e[:-1], e[1:])[0, 1]
    b = e[: len(e) // 32 * 32].reshape(-1, 32)  # batches of 32, as measured
    share = b.mean(axis=1).var() / e.var()
    print(f"{run}: error sd {e.std():.3f} (log), lag-1 autocorrelation {lag1:.3f}, "
          f"share of the variance that batch means carry {share:.3f} (1/32 = {1 / 32:.3f} if none)")
