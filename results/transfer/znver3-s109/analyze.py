"""Stop 109: how alike do passes of Zen 3's L2 table rank its 1,152 configs? One pass against another, 3-pass
medians (the default protocol) against each other, and the 6-pass median against stop 108's and stop 73's one-pass
tables. Usage: python analyze.py SIX_PASS_TABLE_DIR (reads L2.json.gz there; cheap, no measurement)."""

import sys
from itertools import combinations
from pathlib import Path

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.storage.tables import spearman

HERE = Path(__file__).resolve().parent
gt = load_table("L2", sys.argv[1])
pc = gt.pass_cost
n, P = pc.shape
flops = gt.task.flops
print(f"L2 table, {P} passes, {n} configs; machine {gt.meta['machine']['cpu']} ({gt.meta['machine']['llvm_cpu']}); "
      f"measured {gt.meta['session_started']} - {gt.meta['finished']}; {gt.meta['session_wall_s']} s")


def share(cost):
    """GFLOP/s over the best, per config (0 where failed)."""
    g = np.where(np.isfinite(cost), flops / cost / 1e9, 0.0)
    return g / g.max()


def sp(a, b):
    ok = np.isfinite(a) & np.isfinite(b)
    return spearman(a[ok], b[ok])


def top_region_sp(a, b, ref):
    """Spearman over the configs at >= 50% of the optimum in ``ref`` (the region a 95% threshold lives in)."""
    m = share(ref) >= 0.5
    return sp(a[m], b[m]), int(m.sum())


print("\n## Each pass: optimum GFLOP/s, its config, median share against the six-pass median")
med6 = np.median(pc, axis=1)
for k in range(P):
    c = pc[:, k]
    ok = np.isfinite(c) & np.isfinite(med6)
    j = int(np.nanargmin(np.where(np.isfinite(c), c, np.nan)))
    print(f"pass {k + 1}: optimum {flops / c[j] / 1e9:6.1f} GFLOP/s at config {gt.index[j]}; its share in the six-pass "
          f"median {share(med6)[j]:.3f}; median speed over the six-pass median {np.median(med6[ok] / c[ok]):.3f}")

print("\n## One pass against another (Spearman over all configs; over the >= 50% region of the six-pass median)")
pairs = [(a, b, sp(pc[:, a], pc[:, b]), top_region_sp(pc[:, a], pc[:, b], med6)[0]) for a, b in combinations(range(P), 2)]
for a, b, r, rt in pairs:
    print(f"  passes {a + 1},{b + 1}: {r:.3f}  top region {rt:.3f}")
rs, rts = [p[2] for p in pairs], [p[3] for p in pairs]
print(f"one-pass agreement: median {np.median(rs):.3f} (min {min(rs):.3f}, max {max(rs):.3f}); "
      f"top region median {np.median(rts):.3f} (min {min(rts):.3f})")


def compare(name_a, a, name_b, b):
    sa, sb = share(a), share(b)
    ia, ib = int(np.argmax(sa)), int(np.argmax(sb))
    r = sp(a, b)
    rt, nt = top_region_sp(a, b, med6)
    top10a, top10b = set(np.argsort(-sa)[:10]), set(np.argsort(-sb)[:10])
    print(f"{name_a} vs {name_b}: Spearman {r:.3f} (top region, {nt} configs: {rt:.3f}); "
          f"{name_a}'s optimum (config {gt.index[ia]}) at {sb[ia]:.3f} in {name_b}; "
          f"{name_b}'s optimum (config {gt.index[ib]}) at {sa[ib]:.3f} in {name_a}; top-10 overlap {len(top10a & top10b)}; "
          f"within 95%: {int((sa >= 0.95).sum())} and {int((sb >= 0.95).sum())}")


print("\n## Three-pass medians (the default protocol) against each other")
halves = [(f"passes {'-'.join(str(k + 1) for k in h)}", np.median(pc[:, list(h)], axis=1))
          for h in ((0, 1, 2), (3, 4, 5), (0, 2, 4), (1, 3, 5))]
compare(halves[0][0], halves[0][1], halves[1][0], halves[1][1])
compare(halves[2][0], halves[2][1], halves[3][0], halves[3][1])

print("\n## The six-pass median against the one-pass tables of stops 108 and 73 (same VM type)")
for name, d in (("stop 108", HERE.parent / "tables-znver3-s108"), ("stop 73", HERE.parent / "tables-znver3")):
    old = load_table("L2", d)
    assert old.index.tolist() == gt.index.tolist()
    compare("six-pass", med6, name, old.cost)
print(f"\nsix-pass optimum {gt.optimum_gflops:.1f} GFLOP/s at config {gt.index[int(np.argmin(gt.cost))]}; "
      f"configs within 95%: {gt.configs_within(0.95)}, within 90%: {gt.configs_within(0.90)}")
