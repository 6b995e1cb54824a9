"""Stop 53 exploration: variants of the transfer start on replayed layers (autotvm)."""
import math, sys, json
import numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench import transfer as bt
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer import prior as P
from tensortune.strategies import model_based as MB

import os
TABLES = os.environ.get("TABLES") or None
CPU = os.environ.get("CPU", "rocketlake")
orig_init = P.TransferPrior.initial_configs
orig_sample = MB.ModelBasedStrategy.sample

def fill_init(self, k=8, per_source=None):  # the shipped rule since 2ef9da7: k shared out, at least 2 each
    return orig_init(self, k, per_source)

def two_init(self, k=8, per_source=None):  # the rule before 2ef9da7: 2 per source
    return orig_init(self, k, 2 if per_source is None else per_source)

def ramp_sample(self, cands, rnd):
    k = self.plan_size
    if self.plan_first:
        k = min(k, 8 * 2 ** len(self.rounds))
    return self.sampler.select(cands, k, self.space, self.visited, self.rng)

orig_fit = P.PriorCostModel.fit
def norm_fit(self, x, y):
    decay = 1.0 / (1.0 + 8.0 * len(y) / self.plan_size)
    total = sum(self.prior.similarity) or 1.0
    xs = [s.x for s in self.prior.sources] + [np.asarray(x)]
    ys = [s.y for s in self.prior.sources] + [np.asarray(y)]
    w = [decay * v / total for v in self.prior.similarity] + [1.0]
    n = [max(len(a), 1) for a in ys]
    N = sum(n); W = sum(w)
    self.base.fit_groups(xs, ys, [wi * N / (ni * W) for wi, ni in zip(w, n)])

def setv(v):
    P.PriorCostModel.fit = norm_fit if "norm" in v else orig_fit
    P.TransferPrior.initial_configs = fill_init if "fill" in v else two_init
    MB.ModelBasedStrategy.sample = ramp_sample if "ramp" in v else orig_sample

layers = sys.argv[1].split(",")
variants = sys.argv[2].split(",")
seeds = [int(s) for s in sys.argv[3].split(",")]
recipe = sys.argv[4] if len(sys.argv) > 4 else "autotvm"
tables = {n: load_table(n, TABLES) for n in ["L1", "L2", "L7", "L8"]}
corpus = default_corpus(CPU)
for held in layers:
    gt = tables[held]
    opt = float(gt.task.flops / np.min(gt.cost[np.isfinite(gt.cost)]) / 1e9)
    others = [t for n, t in tables.items() if n != held]
    for v in variants:
        setv(v)
        hits = []
        for s in seeds:
            r = bt.run_one(gt, others, recipe, s, 120, v != "none", corpus=corpus)
            c = np.array(r["curve"])
            h = np.nonzero(c >= 0.95 * opt)[0]
            hits.append(int(h[0]) + 1 if len(h) else 999)
        print(held, recipe, v, hits, "median", int(np.median(hits)), flush=True)
