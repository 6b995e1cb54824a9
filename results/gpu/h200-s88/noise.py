"""Noise of the CUDA tables: the same kernels measured twice in one GPU session (pass 1 = the shipped
tables, pass 2 = a second pass) and, for L1/L2, in an earlier session (call 1, no warm-up).

    PYTHONPATH=src python results/gpu/h200-s88/noise.py PASS1_DIR PASS2_DIR [EARLIER_DIR]
"""

import json
import sys
from pathlib import Path

import numpy as np


def load(d, layer):
    p = Path(d) / f"{layer}.jsonl"
    if not p.exists():
        return None
    return {r["index"]: r["cost"] for r in map(json.loads, p.read_text().splitlines()) if r["error"] == 0}


def rank_corr(a, b):
    ra, rb = np.argsort(np.argsort(a)), np.argsort(np.argsort(b))
    return float(np.corrcoef(ra, rb)[0, 1])


for layer in ("L1", "L2", "L7", "L8"):
    for label, other in (("same session", sys.argv[2]), ("earlier session", sys.argv[3] if len(sys.argv) > 3 else None)):
        a, b = load(sys.argv[1], layer), load(other, layer) if other else None
        if not a or not b:
            continue
        keys = sorted(set(a) & set(b))
        x, y = np.array([a[k] for k in keys]), np.array([b[k] for k in keys])
        rel = np.abs(y / x - 1)
        top = sorted(keys, key=lambda k: a[k])[:20]
        best_a, best_b = min(keys, key=lambda k: a[k]), min(keys, key=lambda k: b[k])
        print(f"{layer} {label}: {len(keys)} kernels, |relative difference| median {np.median(rel):.2%}, "
              f"90th pct {np.quantile(rel, 0.9):.2%}; rank correlation {rank_corr(x, y):.4f}; "
              f"best config {'the same' if best_a == best_b else 'differs'} "
              f"({a[best_a] * 1e6:.2f} vs {b[best_b] * 1e6:.2f} us; pass-1 best in the other: {b[best_a] * 1e6:.2f} us); "
              f"pass-1 top 20 median |diff| {np.median([abs(b[k] / a[k] - 1) for k in top]):.2%}")
