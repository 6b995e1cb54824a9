# Stop 65: held-out L1, L2, L7, L8 with transfer on five CPUs' tables and shipped corpora (replay, 120
# measurements), with a variant of PriorCostModel.fit chosen by TT_VARIANT, monkeypatched in this process only.
# Usage: TT_VARIANT=base|floor python exp.py RECIPE SEEDS OUT.json [CPUS]
import sys, json, os
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P

V = os.environ.get('TT_VARIANT', 'base')
FLOOR = float(os.environ.get('TT_FLOOR', '1.0'))
if V == 'floor':
    # a source keeps its absolute similarity when the sources' total is below FLOOR: one weak source (L1's
    # 11x11/4 stem) no longer weighs as much as several near ones
    def fit(self, x, y):
        is_twin = self.prior.twin
        own = len(y) + sum(len(s.y) for s, t in zip(self.prior.sources, is_twin, strict=True) if t)
        decay = 1.0 / (1.0 + 8.0 * own / self.fade)
        total = max(sum(v for v, t in zip(self.prior.similarity, is_twin, strict=True) if not t), FLOOR)
        xs = [s.x for s in self.prior.sources] + [np.asarray(x)]
        ys = [s.y for s in self.prior.sources] + [np.asarray(y)]
        self.base.fit_groups(xs, ys, [1.0 if t else decay * v / total
                                      for v, t in zip(self.prior.similarity, is_twin, strict=True)] + [1.0])
    P.PriorCostModel.fit = fit
elif V != 'base':
    raise SystemExit('unknown TT_VARIANT ' + V)

sets = {'emeraldrapids': 'results/transfer/tables-emeraldrapids',
        'znver4': 'results/transfer/tables-znver4-no-avx512-no-gfni', 'rocketlake': 'results/transfer/tables-rocketlake',
        'znver3': 'results/transfer/tables-znver3', 'znver5': 'src/tensortune/bench/tables'}
recipe = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(',')]; out = sys.argv[3]
which = sys.argv[4].split(',') if len(sys.argv) > 4 else list(sets)
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
res = []
for name in which:
    D = os.path.join(root, sets[name])
    gts = {l: load_table(l, D) for l in ['L1', 'L2', 'L7', 'L8']}
    corp = default_corpus(gts['L1'].meta.get('machine', {}).get('llvm_cpu'))
    for seed in seeds:
        for L, gt in gts.items():
            o = max(gt.task.flops / c for c in gt.cost if 0 < c < float('inf')) / 1e9
            r = run_one(gt, [g for l, g in gts.items() if l != L], recipe, seed, 120, True, corpus=corp)
            n = next((i + 1 for i, v in enumerate(r['curve']) if v >= 0.95 * o), None)
            res.append((name, L, seed, n)); print(name, L, seed, n, flush=True)
json.dump(res, open(out, 'w'))
