"""Per task of a whole-model database resumed with --confirm-top: the config its single trials ranked best, the
config the confirmation ranks best, their confirmed medians, and whether one confirmation round (the first of
the record's pooled rounds) would have picked the same config as all of them.
Usage: python confirmed.py DB"""
import json
import sqlite3
import statistics as st
import sys

db = sys.argv[1]
c = sqlite3.connect(db)
tasks = [r[0] for r in c.execute("select distinct task_name from records where kind='remeasure'")]
same1 = n = 0
print("| task | trial pick: config, GFLOP/s in trials | confirmed pick | confirmed GFLOP/s: trial pick / confirmed pick | 1 round agrees |")
print("|---|---|---|---|---|")
for t in tasks:
    trials = list(c.execute("select config_index, cost, flops from records where task_name=? and kind='trial' and cost>0 "
                            "order by cost", (t,)))
    rem = {ci: (json.loads(cs), fl, json.loads(ex)["confirm_rounds"]) for ci, cs, fl, ex in
           c.execute("select config_index, costs, flops, extra from records where task_name=? and kind='remeasure'",
                     (t,))}
    if not trials or not rem:
        continue
    tp = trials[0][0]
    med = {ci: st.median(cs) for ci, (cs, fl, k) in rem.items()}
    r1 = {ci: st.median(cs[:len(cs) // k]) for ci, (cs, fl, k) in rem.items()}  # the first round's repeats
    cp = min(med, key=med.get)
    fl = trials[0][2]
    agree = min(r1, key=r1.get) == cp
    n += 1
    same1 += agree
    tg = f"{fl / med[tp] / 1e9:.1f}" if tp in med else "-"
    print(f"| {t[:40]} | {tp}, {fl / trials[0][1] / 1e9:.1f} | {cp}{' (same)' if cp == tp else ''} | {tg} / "
          f"{fl / med[cp] / 1e9:.1f} | {'yes' if agree else 'no'} |")
print(f"\none round picks as all rounds do on {same1} of {n} tasks")
