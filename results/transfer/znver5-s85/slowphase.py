"""Median ratio of the trial readings (GFLOP/s) of the configs two whole-model databases share, Winograd tasks only.
Usage: python slowphase.py A.db B.db ...  (every pair)"""
import sqlite3
import statistics as st
import sys


def load(f):
    c = sqlite3.connect(f)
    return {(t, ci): g for t, ci, g in c.execute("select task_name, config_index, flops/cost/1e9 from records where "
                                                  "kind='trial' and cost>0 and flops>0 and task_name like '%winograd%'")}


dbs = sys.argv[1:]
D = [load(f) for f in dbs]
for i in range(len(dbs)):
    for j in range(i + 1, len(dbs)):
        com = set(D[i]) & set(D[j])
        if len(com) >= 3:
            r = [D[i][k] / D[j][k] for k in com]
            print(f"{dbs[i].split('/')[-1]} / {dbs[j].split('/')[-1]}: {len(com)} configs, median ratio "
                  f"{st.median(r):.3f} (range {min(r):.2f}-{max(r):.2f})")
