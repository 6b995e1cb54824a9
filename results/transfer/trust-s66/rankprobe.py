# how well the sources-only cross-task model ranks the held-out table (Kendall-like pairwise accuracy), where
# the table's top configs fall in its order
import sys, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import TransferPrior
from tensortune.cost_models.registry import make_cost_model
T=sys.argv[1]; L=sys.argv[2]
layers=['L1','L2','L7','L8']
tables={x:load_table(x,T) for x in layers}
held=tables[L]
corpus=default_corpus(held.meta.get('machine',{}).get('llvm_cpu'))
p=TransferPrior.from_tables(held.task,[tables[x] for x in layers if x!=L],0,corpus=corpus)
gf=np.where(np.isfinite(held.cost)&(held.cost>0), held.task.flops/np.where(held.cost>0,held.cost,1)/1e9, 0)
sp=held.task.space
idx=np.array([sp.config(int(i)).indices for i in held.index])
m=p.cost_model(make_cost_model('xgb', loss='rank', seed=0))
m.fit(np.zeros((0, p.sources[0].x.shape[1])), np.zeros(0))
pred=m.predict(p.model_features.encode_indices(idx))
rng=np.random.default_rng(0); a=rng.integers(0,len(gf),20000); b=rng.integers(0,len(gf),20000)
k=gf[a]!=gf[b]
acc=np.mean((pred[a][k]>pred[b][k])==(gf[a][k]>gf[b][k]))
print(L, 'sources', len(p.sources), 'pairwise acc %.3f'%acc)
order=np.argsort(-pred); rank=np.empty(len(gf),int); rank[order]=np.arange(len(gf))
top=np.argsort(-gf)[:10]
print(' ranks of the 10 best configs in the model order:', [int(rank[i]) for i in top])
print(' gf of the model top 20:', [round(float(gf[i]),1) for i in order[:20]], 'opt %.1f'%gf.max())
