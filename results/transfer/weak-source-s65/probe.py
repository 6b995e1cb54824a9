import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import TransferPrior
T=sys.argv[1]; L=sys.argv[2]
layers=['L1','L2','L7','L8']
tables={x:load_table(x,T) for x in layers}
held=tables[L]
cpu=held.meta.get('machine',{}).get('llvm_cpu')
corpus=default_corpus(cpu)
p=TransferPrior.from_tables(held.task,[tables[x] for x in layers if x!=L],0,corpus=corpus)
print('held',held.task.name, 'n configs', len(held.index))
for s,v in zip(p.sources,p.similarity): print(' src',s.name[:90], 'sim %.3f'%v, 'rows',len(s.y), 'prior_w %.2f'%s.prior_weight)
gf=np.where(np.isfinite(held.cost)&(held.cost>0), held.task.flops/np.where(held.cost>0,held.cost,1)/1e9, 0)
o=np.argsort(-gf)
sp=held.task.space
print('knobs', [k.name for k in sp.knobs])
for i in o[:8]: print(' top %.1f'%gf[i], sp.config(int(held.index[i])))
init=p.initial_configs()
pos={int(ix):j for j,ix in enumerate(held.index)}
for c in init:
    j=pos.get(sp.index_of(c)); print(' init %.1f'%(gf[j] if j is not None else -1), c)
print('share >=95%%: %d / %d'%((gf>=0.95*gf.max()).sum(), len(gf)))
