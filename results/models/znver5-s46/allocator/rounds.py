"""Reconstruct a whole-model run's rounds from its database (consecutive trials of one task = a round) and
say, for each round, which tasks rested (patience 3, 0.5%) under the allocator that ran."""
import sqlite3, sys, math
sys.path.insert(0, "/work/main/src")
from tensortune.models.allocation import TaskProgress
db = sys.argv[1]
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
rows = c.execute("select task_name, cost, error, flops from records where kind='trial' order by id").fetchall()
rounds = []
for name, cost, err, flops in rows:
    if rounds and rounds[-1][0] == name:
        rounds[-1][1].append(cost if err == 0 and cost else math.inf)
    else:
        rounds.append([name, [cost if err == 0 and cost else math.inf], flops])
prog, best = {}, {}
names = list(dict.fromkeys(r[0] for r in rounds))
short = {n: n.replace("fused_", "")[:22] for n in names}
watch = [n for n in names if any(k in n for k in sys.argv[2:])] if len(sys.argv) > 2 else []
for k, (name, costs, flops) in enumerate(rounds):
    p = prog.setdefault(name, TaskProgress(1, flops, "x", 10**9))
    resting = [short[n] for n, q in prog.items() if q.history and q.stale_rounds() >= 3]
    if watch and any(w in name for w in sys.argv[2:]) or not watch:
        print(f"round {k:3d} {short[name]:24s} n={len(costs):2d} trials_before={p.trials:4d} best={min([best.get(name, math.inf)] + costs)*1e6:9.1f}us resting={len(resting)}/{len(prog)}")
    p.trials += len(costs)
    best[name] = min([best.get(name, math.inf)] + costs)
    p.history.append((p.trials, best[name]))
print("trials:", {short[n]: q.trials for n, q in prog.items()})
print("stale rounds at end:", {short[n]: q.stale_rounds() for n, q in prog.items()})
