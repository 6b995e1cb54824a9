"""Measurements per task and best tuned time, two whole-model databases side by side (tuning trials only)."""
import sqlite3
import sys

def per_task(db):
    c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    q = ("select task_name, count(*), min(case when error = 0 then cost end), max(flops) from records "
         "where kind = 'trial' group by task_name")
    return {n: (k, b, f) for n, k, b, f in c.execute(q)}

a, b = per_task(sys.argv[1]), per_task(sys.argv[2])
names = sorted(set(a) | set(b), key=lambda n: -max(a.get(n, (0, 0, 0))[2], b.get(n, (0, 0, 0))[2]))
print(f"{'task':62s} {'trials A':>8s} {'trials B':>8s} {'best A us':>10s} {'best B us':>10s}   A = {sys.argv[1]}, B = {sys.argv[2]}")
for n in names:
    ka, ba, _ = a.get(n, (0, None, 0))
    kb, bb, _ = b.get(n, (0, None, 0))
    f = lambda v: f"{v * 1e6:10.1f}" if v else f"{'-':>10s}"
    print(f"{n[:62]:62s} {ka:8d} {kb:8d} {f(ba)} {f(bb)}")
print(f"{'total':62s} {sum(v[0] for v in a.values()):8d} {sum(v[0] for v in b.values()):8d}")
