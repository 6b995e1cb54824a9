import numpy as np
from tensortune.bench.groundtruth import load_table, groundtruth_task
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import TransferPrior
T="/work/main/results/transfer/tables-rocketlake"
tabs={n: load_table(n,T) for n in ["L1","L2","L7","L8"]}
c=default_corpus("rocketlake")
for L in ["L6","L2","L8"]:
    task = tabs[L].task if L in tabs else groundtruth_task(L)
    for s in range(4):
        p=TransferPrior.from_tables(task,[t for n,t in tabs.items() if n!=L],s,corpus=c)
        print(L, s, [task.space.index_of(x) for x in p.initial_configs()], [ (src.name[:3], len(src.y), round(float(src.y.max())/1e9,1)) for src in p.sources if len(src.y)>300])
