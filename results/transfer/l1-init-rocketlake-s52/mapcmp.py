import os, sys
from tensortune.bench.groundtruth import load_table, groundtruth_task
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import Corpus
T = "/work/main/results/transfer/tables-rocketlake"
tabs = {x: load_table(x, T) for x in ("L1", "L2", "L7", "L8")}
c = Corpus.load(sys.argv[1])
c.install_task_files()
for L in ("L1", "L2", "L7", "L8", "L3", "L4", "L5", "L6"):
    task = tabs[L].task if L in tabs else groundtruth_task(L)
    srcs = [t for k, t in tabs.items() if k != L]
    p = TransferPrior.from_tables(task, srcs, 0, corpus=c)
    cfgs = p.initial_configs()
    out = []
    for cfg in cfgs:
        if L in tabs:
            t = tabs[L]; pos = t._pos.get(int(task.space.index_of(cfg)))
            out.append(None if pos is None else round(float(t.gflops[pos] / t.gflops.max()), 3))
        else:
            out.append(cfg.indices)
    print(L, out, flush=True)
