# Stop 62: exp.py of ../group-size-s61 with the first design's size from TT_K (default 8, the code's) by a
# monkeypatch of TransferPrior.initial_configs in this process only (nothing committed changes with it).
import sys, json, os
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P
K = int(os.environ.get('TT_K', '8'))
_orig = P.TransferPrior.initial_configs
P.TransferPrior.initial_configs = lambda self, k=8, per_source=None: _orig(self, K, per_source) if K > 0 else []
sets={'znver4':'results/transfer/tables-znver4-no-avx512-no-gfni','rocketlake':'results/transfer/tables-rocketlake',
      'znver3':'results/transfer/tables-znver3','znver5':'src/tensortune/bench/tables'}
recipe=sys.argv[1]; seeds=[int(s) for s in sys.argv[2].split(',')]; out=sys.argv[3]
which=sys.argv[4].split(',') if len(sys.argv)>4 else list(sets)
res=[]
for name in which:
    D=sets[name]
    gts={l:load_table(l,D) for l in ['L1','L2','L7','L8']}
    cpu=gts['L1'].meta.get('machine',{}).get('llvm_cpu')
    corp=default_corpus(cpu)
    for seed in seeds:
        for L,gt in gts.items():
            o=max(gt.task.flops/c for c in gt.cost if c>0 and c<float('inf'))/1e9
            r=run_one(gt,[g for l,g in gts.items() if l!=L],recipe,seed,120,True,corpus=corp)
            n=next((i+1 for i,v in enumerate(r['curve']) if v>=0.95*o),None)
            res.append((name,L,seed,n)); print(name,L,seed,n,flush=True)
json.dump(res,open(out,'w'))
