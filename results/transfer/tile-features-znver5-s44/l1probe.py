import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import TransferPrior
names=["L1","L2","L7","L8"]
tables={n:load_table(n,None) for n in names}
gt=tables["L1"]
corpus=__import__("tensortune.transfer.corpus",fromlist=["x"]).Corpus.load(__import__("sys").argv[1])
prior=TransferPrior.from_tables(gt.task,[tables[n] for n in names if n!="L1"],0,corpus=corpus)
print(prior.describe()); print([ (s.name, round(w,4)) for s,w in zip(prior.sources,prior.similarity)])
sp=gt.task.space
thr=np.where(np.isfinite(gt.cost)&(gt.cost>0), gt.task.flops/np.where(gt.cost>0,gt.cost,1)/1e9,0)
opt=thr.max(); print("L1 table", len(thr), "valid", (thr>0).sum(), "opt", opt)
pos={int(i):k for k,i in enumerate(gt.index)}
order=np.argsort(-thr); rank={int(gt.index[k]):r for r,k in enumerate(order)}
print("knobs", [k.name for k in sp.knobs])
for r in range(5):
    k=order[r]; print("L1 top", r, thr[k]/opt, sp.config(int(gt.index[k])).values if hasattr(sp.config(0),'values') else sp.config(int(gt.index[k])))
for cfg in prior.initial_configs():
    i=sp.index_of(cfg); k=pos.get(i)
    print("init", cfg, None if k is None else (round(thr[k]/opt,3), rank[i]))
src=prior.sources[0]
print("src best y", np.sort(src.y)[-5:], len(src.y))
from tensortune.templates import make_task
from tensortune.workloads import workload_from_key
import json
def show(space, cfg):
    return {k.name: k.options[i] if hasattr(k,'options') else i for k,i in zip(space.knobs, cfg.indices)}
for r in range(5):
    print("L1", round(thr[order[r]]/opt,3), show(sp, sp.config(int(gt.index[order[r]]))))
# corpus source task
for t_key, tgt, name in corpus.tasks():
    if t_key==src.name or name==src.name:
        other=make_task(workload_from_key(t_key.split('|',1)[1]), t_key.split('|',1)[0], json.loads(tgt), t_key)
        recs=[r for r in corpus.records(t_key,tgt) if r.ok]
        recs.sort(key=lambda r:r.cost)
        for r in recs[:4]:
            print("SRC", round(other.flops/r.cost/1e9,1), show(other.space, other.space.from_json(r.config)))
for cfg in prior.initial_configs():
    print("INIT", show(sp,cfg))
