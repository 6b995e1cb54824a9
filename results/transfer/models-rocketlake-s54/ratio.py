import sqlite3, sys, statistics as st
def load(p):
    c = sqlite3.connect(p)
    d = {}
    for name, ci, cost, ts in c.execute("select task_name, config_index, cost, timestamp from records where kind='trial' and error=0 and cost is not null"):
        d.setdefault((name, ci), []).append((cost, ts))
    return d
ref = {}
for p in sys.argv[1].split(","):
    for k, v in load(p).items():
        ref.setdefault(k, []).extend(x[0] for x in v)
for p in sys.argv[2:]:
    d = load(p)
    rs = sorted((ts, cost / st.median(ref[k])) for k, v in d.items() if k in ref for cost, ts in v)
    if not rs:
        print(p, "no common"); continue
    n = len(rs); q = max(1, n // 4)
    parts = [st.median([r for _, r in rs[i:i+q]]) for i in range(0, n, q)]
    print(f"{p}: {n} common, median ratio {st.median([r for _, r in rs]):.2f}; by quarter of time {' '.join(f'{x:.2f}' for x in parts)}")
