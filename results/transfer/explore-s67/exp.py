# Stop 67: held-out L1, L2, L7, L8 with transfer on five CPUs' tables and shipped corpora (replay, 120 measurements)
# with a variant picked by TT_VARIANT (monkeypatched in this process only; the package is unchanged by it):
#   pkg:     the package's code (source trust, stop 66)
#   explore: while the task has fewer than TT_UNTIL own outcomes, a share (1 - s) of every plan is random configs,
#            s = the sources' trust-weighted share (sum of similarity x trust over the sum of similarity, non-twin
#            sources): the random exploration a run without transfer makes (AutoTVM's first 64) is given back in
#            the measure the sources have lost their trust.
import sys, json, os
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P
from tensortune.strategies.model_based import ModelBasedStrategy

V = os.environ.get('TT_VARIANT', 'pkg')
UNTIL = int(os.environ.get('TT_UNTIL', '64'))
POW = float(os.environ.get('TT_POW', '1'))

if V == 'explore':
    orig_sample = ModelBasedStrategy.sample
    def sample(self, cands, rnd):
        plan = orig_sample(self, cands, rnd)
        m = self.model
        if not isinstance(m, P.PriorCostModel) or len(self.ys) >= UNTIL:
            return plan
        w = [v for v, t in zip(m.prior.similarity, m.prior.twin) if not t]
        tr = [x for x, t in zip(m.trust, m.prior.twin) if not t]
        if not w:
            return plan
        s = float(np.dot(w, tr) / np.sum(w))
        n_rand = int(round(len(plan) * (1.0 - s) ** POW))
        if n_rand <= 0:
            return plan
        keep = plan[:len(plan) - n_rand]
        taken = set(self.visited) | set(keep)
        return keep + self.space.sample(n_rand, self.rng, exclude=taken)
    ModelBasedStrategy.sample = sample
elif V != 'pkg':
    raise SystemExit('unknown TT_VARIANT ' + V)

sets = {'emeraldrapids': 'results/transfer/tables-emeraldrapids',
        'znver4': 'results/transfer/tables-znver4-no-avx512-no-gfni', 'rocketlake': 'results/transfer/tables-rocketlake',
        'znver3': 'results/transfer/tables-znver3', 'znver5': 'src/tensortune/bench/tables'}
recipe = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(',')]; out = sys.argv[3]
which = sys.argv[4].split(',') if len(sys.argv) > 4 else list(sets)
layers = sys.argv[5].split(',') if len(sys.argv) > 5 else ['L1', 'L2', 'L7', 'L8']
trials = int(os.environ.get('TT_TRIALS', '120'))
root = os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', '..')
res = []
for name in which:
    D = os.path.join(root, sets[name])
    gts = {l: load_table(l, D) for l in ['L1', 'L2', 'L7', 'L8']}
    corp = default_corpus(gts['L1'].meta.get('machine', {}).get('llvm_cpu'))
    for seed in seeds:
        for L in layers:
            gt = gts[L]
            o = max(gt.task.flops / c for c in gt.cost if 0 < c < float('inf')) / 1e9
            r = run_one(gt, [g for l, g in gts.items() if l != L], recipe, seed, trials, True, corpus=corp)
            n = next((i + 1 for i, v in enumerate(r['curve']) if v >= 0.95 * o), None)
            res.append((name, L, seed, n)); print(name, L, seed, n, flush=True)
            json.dump(res, open(out, 'w'))
