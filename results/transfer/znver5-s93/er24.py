import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import _search
from tensortune.measure.replay import ReplayMeasurer
from tensortune.transfer.corpus import default_corpus
T="results/transfer/tables-emeraldrapids"
tabs = {n: load_table(n, T) for n in ["L1","L2","L7","L8"]}
l1 = tabs["L1"]; sp = l1.task.space
for seed in (0, 1):
    r = _search(l1.task, ReplayMeasurer([l1]), [tabs[x] for x in ["L2","L7","L8"]], "autotvm", seed, 24, True, corpus=default_corpus("emeraldrapids"), keep_top=3)
    tf = [sp.values(sp.config(int(i)))["tile_f"] for i in r["measured"][:24]]
    print(seed, len(tf), sorted(set(tf)), "f-reg x lanes:", sorted(set(t[2]*t[3] for t in tf)))
