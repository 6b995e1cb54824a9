import sys, os, numpy as np
from tensortune.transfer.features import TransferFeatures
if os.environ.get("NOTILES"): TransferFeatures._tiles = property(lambda self: None)
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import Corpus
names=["L1","L2","L7","L8"]
tables={n:load_table(n,None) for n in names}
from tensortune.transfer.corpus import default_corpus
corpus=Corpus.load(sys.argv[1]) if sys.argv[1]!="shipped" else default_corpus("znver5")
held=sys.argv[2] if len(sys.argv)>2 else "L1"
gt=tables[held]; opt=float(gt.task.flops/np.min(gt.cost[np.isfinite(gt.cost)])/1e9)
for recipe in sys.argv[3].split(","):
  for tr in ((False, True) if not os.environ.get("ONLYWITH") else (True,)):
    ns=[]
    for seed in range(9):
        r=run_one(gt,[tables[n] for n in names if n!=held],recipe,seed,120,tr,corpus=corpus if tr else None)
        c=r["curve"]; ns.append(next((i+1 for i,v in enumerate(c) if v>=0.95*opt),999))
    print(held, recipe, "with" if tr else "without", "median", int(np.median(ns)), ns, flush=True)
