"""Stop 109, offline: would removing the host's phases help? Each reading's error over its config's median is
partly shared with the readings timed just before and after it (noise.py). Since every pass runs in its own random
order, the mean error of a reading's time neighbours (other configs) estimates the phase it was timed in; divide
it out and take medians again. Compared: two 3-pass halves' agreement with and without the correction, for
several neighbourhood sizes. Usage: python phase.py DB (read-only, cheap)."""

import sqlite3
import sys
import numpy as np

sys.path.insert(0, "/work/main/src")
from tensortune.storage.tables import spearman  # noqa: E402

db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute("select run_id, config_index, cost from records where kind='trial' order by id").fetchall()
runs = sorted({r[0] for r in rows})
idx = sorted({int(r[1]) for r in rows})
pos = {i: k for k, i in enumerate(idx)}
seq = {run: [(pos[int(r[1])], r[2]) for r in rows if r[0] == run] for run in runs}  # time order per pass


def corrected(passes, window, rounds=3):
    """log costs (configs x passes) with each reading's phase (mean error of its +-window time neighbours in its
    pass, itself excluded) removed; window 0: none."""
    logc = np.full((len(idx), len(passes)), np.nan)
    for j, run in enumerate(passes):
        for p, c in seq[run]:
            logc[p, j] = np.log(c)
    if window == 0:
        return logc
    fixed = logc.copy()
    for _ in range(rounds):
        med = np.median(fixed, axis=1)
        for j, run in enumerate(passes):
            order = np.array([p for p, _ in seq[run]])
            err = logc[order, j] - med[order]
            csum = np.concatenate([[0.0], np.cumsum(err)])
            n = len(err)
            lo = np.clip(np.arange(n) - window, 0, n)
            hi = np.clip(np.arange(n) + window + 1, 0, n)
            phase = (csum[hi] - csum[lo] - err) / (hi - lo - 1)
            fixed[order, j] = logc[order, j] - phase
    return fixed


def agree(a, b):
    ma, mb = np.median(a, axis=1), np.median(b, axis=1)
    sa, sb = np.exp(ma.min() - ma), np.exp(mb.min() - mb)  # share of each half's optimum
    ia, ib = int(np.argmax(sa)), int(np.argmax(sb))
    top = sa >= 0.5
    return spearman(ma, mb), spearman(ma[top], mb[top]), sb[ia], sa[ib]


print("Each 3-pass half is corrected with its own three passes only (no reading of the other half is used), as a\n"
      "3-pass table would be. Columns: 3-pass halves' Spearman, over the top region (>= 50% in the first half), each\n"
      "half's optimum as a share of the other's, for two splits (1-2-3 / 4-5-6; 1-3-5 / 2-4-6)")
splits = (((0, 1, 2), (3, 4, 5)), ((0, 2, 4), (1, 3, 5)))
for w in (0, 2, 4, 8, 16, 32):
    out = [agree(corrected([runs[k] for k in h1], w), corrected([runs[k] for k in h2], w)) for h1, h2 in splits]
    print(f"window {w:3d} | " + "; ".join(f"{r:.3f}, {rt:.3f}, {x:.2f}/{y:.2f}" for r, rt, x, y in out))
