import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.bench import transfer as BT
from tensortune.measure import replay as R
T=sys.argv[1]; L=sys.argv[2]; seed=int(sys.argv[3]); tr=sys.argv[4]=='1'
layers=['L1','L2','L7','L8']
tables={x:load_table(x,T) for x in layers}
held=tables[L]
corpus=default_corpus(held.meta.get('machine',{}).get('llvm_cpu'))
log=[]
orig=R.ReplayMeasurer.measure
def measure(self, inputs):
    out=orig(self, inputs)
    for i,o in zip(inputs,out): log.append((i.config.indices, held.task.flops/o.cost/1e9 if o.ok else 0))
    return out
R.ReplayMeasurer.measure=measure
r=BT.run_one(held,[tables[x] for x in layers if x!=L],'autotvm',seed,120,tr,corpus=corpus)
for j,(c,g) in enumerate(log): print(j+1, c, round(g,1))
