"""The live L1 runs against the shipped Zen 5 L1 table: for each run, the measurement at which it first ran a config
the table puts within 95% of its optimum (replay's credit), beside the live credit (confirmed medians); and the
confirmed configs' live medians against their table values."""
import json, statistics, sys
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import live_reach

d = json.load(open(sys.argv[1]))
t = load_table("L1")
g = t.gflops
opt = t.optimum_gflops
def tab(c):
    p = t.position(int(c))
    return None if p is None else float(g[p])
conf = d.get("confirmed", {}).get("L1", {})
copt = max(conf.values()) if conf else None
print(f"table optimum {opt:.1f} GFLOP/s; live confirmed optimum {copt}")
rows = {}
for r in d["runs"]:
    if r["layer"] != "L1":
        continue
    m = r["measured"]
    at_tab = next((i for i, c in enumerate(m, 1) if (tab(c) or 0) >= 0.95 * opt), None)
    at_live = live_reach(r, conf, 0.95 * copt)[0] if conf else None
    own = live_reach(r, conf, 0.95 * copt, own_top=True)[0] if conf else None
    first8 = [round((tab(c) or 0) / opt, 3) for c in m[:8]]
    key = (r["recipe"], r.get("transfer"))
    rows.setdefault(key, []).append((r["seed"], at_tab, at_live, own))
    print(r["recipe"], "with" if r["transfer"] else "without", "seed", r["seed"], "table-reach", at_tab,
          "live-reach", at_live, "own-top", own, "first 8 (table share)", first8 if r["transfer"] else "")
inf = float("inf")
def med(v):
    v = [x if x is not None else inf for x in v]
    return statistics.median(v)
print()
for (rec, tr), v in sorted(rows.items()):
    print(f"{rec:10s} {'with' if tr else 'without':8s} seeds {[s for s,*_ in v]} table {[a for _,a,_,_ in v]} "
          f"med {med([a for _,a,_,_ in v])}; live {[b for _,_,b,_ in v]} med {med([b for _,_,b,_ in v])}; "
          f"own {[o for *_,o in v]} med {med([o for *_,o in v])}")
if conf:
    pairs = [(v, tab(c)) for c, v in conf.items() if tab(c)]
    rat = [a / b for a, b in pairs if b]
    print(f"\nconfirmed configs {len(conf)}: live median / table value: median {statistics.median(rat):.3f}, "
          f"range {min(rat):.3f}-{max(rat):.3f}")
    import numpy as np
    from scipy.stats import kendalltau
    a, b = zip(*pairs)
    print(f"Kendall tau live vs table over them: {kendalltau(a, b)[0]:.3f}")
    best = max(conf, key=conf.get)
    print(f"live best config {best}: {conf[best]:.1f} live, table {tab(best):.1f} ({tab(best)/opt:.3f} of table optimum); "
          f"table optimum config {int(t.index[int(np.argmax(g))])} confirmed live: {conf.get(str(int(t.index[int(np.argmax(g))])))}")
