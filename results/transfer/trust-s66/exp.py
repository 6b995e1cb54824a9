# Stop 66: held-out L1, L2, L7, L8 with transfer on five CPUs' tables and shipped corpora (replay, 120 measurements),
# PriorCostModel.fit variant by TT_VARIANT (monkeypatched in this process only).
# rgpe: each non-twin source's weight is multiplied by how well a model fitted on that source alone ranks the task's
# own outcomes so far: m = clip((2 acc - 1) / TT_TAU_REF, 0, 1), acc its pairwise accuracy over own pairs of
# different throughput (after TT_MIN_OWN own outcomes; before, m = 1).
import sys, json, os
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P
from tensortune.cost_models.xgb import XGBoostCostModel

V = os.environ.get('TT_VARIANT', 'base')
TAU_REF = float(os.environ.get('TT_TAU_REF', '1.0'))
MIN_OWN = int(os.environ.get('TT_MIN_OWN', '8'))

def pair_acc(p, y):
    dy = y[:, None] - y[None, :]
    dp = p[:, None] - p[None, :]
    k = dy > 0
    if not k.any():
        return None
    return float(np.mean(np.where(dp[k] > 0, 1.0, np.where(dp[k] == 0, 0.5, 0.0))))

if V == 'rgpe':  # the first prototype (stop 66), before the package held source_trust
    def fit(self, x, y):
        is_twin = self.prior.twin
        own = len(y) + sum(len(s.y) for s, t in zip(self.prior.sources, is_twin, strict=True) if t)
        decay = 1.0 / (1.0 + 8.0 * own / self.fade)
        total = sum(v for v, t in zip(self.prior.similarity, is_twin, strict=True) if not t) or 1.0
        y = np.asarray(y, dtype=np.float64)
        mult = [1.0] * len(self.prior.sources)
        if len(y) >= MIN_OWN:
            if not hasattr(self, '_src_models'):
                self._src_models = {}
            for j, (s, t) in enumerate(zip(self.prior.sources, is_twin, strict=True)):
                if t:
                    continue
                if j not in self._src_models:
                    m = XGBoostCostModel(loss='rank', seed=0)
                    m.fit_groups([s.x], [s.y], [1.0])
                    self._src_models[j] = m
                acc = pair_acc(self._src_models[j].predict(np.asarray(x)), y)
                if acc is not None:
                    mult[j] = float(np.clip((2 * acc - 1) / TAU_REF, 0.0, 1.0))
        self.last_mult = mult
        xs = [s.x for s in self.prior.sources] + [np.asarray(x)]
        ys = [s.y for s in self.prior.sources] + [y]
        self.base.fit_groups(xs, ys, [1.0 if t else decay * v / total * m
                                      for v, t, m in zip(self.prior.similarity, is_twin, mult, strict=True)] + [1.0])
    P.PriorCostModel.fit = fit
elif V == 'rel':
    # trust relative to the task's own model: tau_j / max(tau_own, TT_TAU_FLOOR), tau_own the 4-fold
    # cross-validated tau of a model fitted on the own outcomes alone (pairs within each held-out fold)
    import copy
    FLOOR = float(os.environ.get('TT_TAU_FLOOR', '0.1'))
    def own_tau(self, x, y):
        rng = np.random.default_rng(len(y))
        fold = rng.permutation(len(y)) % 4
        num = den = 0.0
        for f in range(4):
            te = fold == f
            tr = ~te
            if len(np.unique(y[tr])) < 2:
                continue
            m = copy.deepcopy(self._blank)
            m.fit_groups([x[tr]], [y[tr]], [1.0])
            dy = y[te][:, None] - y[te][None, :]
            k = dy > 0
            if not k.any():
                continue
            p = m.predict(x[te]); d = (p[:, None] - p[None, :])[k]
            num += float(np.sum(np.where(d > 0, 1.0, np.where(d == 0, 0.5, 0.0)))); den += float(k.sum())
        return 2 * num / den - 1 if den else 0.0
    orig = P.PriorCostModel.source_trust
    def st(self, x, y):
        P.TRUST_TAU = 1.0
        raw = orig(self, x, y)  # clip(tau_j, 0, 1)
        y = np.asarray(y, dtype=np.float64)
        if len(y) < P.TRUST_MIN_OWN or len(np.unique(y)) < 2:
            return raw
        t_own = own_tau(self, np.asarray(x), y)
        return [1.0 if t else float(np.clip(m / max(t_own, FLOOR), 0, 1)) for m, t in zip(raw, self.prior.twin)]
    P.PriorCostModel.source_trust = st
elif V == 'pkg':
    P.TRUST_TAU = float(os.environ.get('TT_TAU_REF', P.TRUST_TAU))
    P.TRUST_MIN_OWN = int(os.environ.get('TT_MIN_OWN', P.TRUST_MIN_OWN))
elif V == 'base':
    P.PriorCostModel.source_trust = lambda self, x, y: [1.0] * len(self.prior.sources)
else:
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
