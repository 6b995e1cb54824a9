# the sources' trust (PriorCostModel.source_trust) at each refit of one replayed run: own outcomes, tau per source
import sys, os, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P
D, L, seed = sys.argv[1], sys.argv[2], int(sys.argv[3])
P.TRUST_TAU = float(os.environ.get('TT_TAU_REF', '1.0'))
orig = P.PriorCostModel.source_trust
def st(self, x, y):
    out = orig(self, x, y)
    print(len(y), 'best %.1f' % (max(y) / 1e9), ' '.join(f'{s.name[:14]}:{m:.2f}' for s, m in zip(self.prior.sources, out)), flush=True)
    return out
P.PriorCostModel.source_trust = st
gts = {l: load_table(l, D) for l in ['L1', 'L2', 'L7', 'L8']}
corp = default_corpus(gts['L1'].meta.get('machine', {}).get('llvm_cpu'))
gt = gts[L]
o = max(gt.task.flops / c for c in gt.cost if 0 < c < float('inf')) / 1e9
r = run_one(gt, [g for l, g in gts.items() if l != L], 'autotvm', seed, 120, True, corpus=corp)
print('opt', o, 'reach', next((i + 1 for i, v in enumerate(r['curve']) if v >= 0.95 * o), None))
