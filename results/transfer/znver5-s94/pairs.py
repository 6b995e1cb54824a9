"""Experiment (stop 94, not shipped): probes two knobs away from an incumbent that the one-knob probes did not beat.
usage: pairs.py on|off SEEDS OUT.json    env CELLS, TRIALS (300), RECIPE (autotvm), LIMIT (8)
  off: the code as shipped;  on: plus, in the plan after an incumbent's one-knob probes (the incumbent is the best
  outcome, measured 1-2 plans ago), up to LIMIT configs that differ from it in exactly two knobs: for each pair of
  knobs the best-scored unmeasured valid such config, the pairs' best first. They take the place the one-knob
  probes take (after the model's first picks); in a plan the discredited-prior rule makes random, they come first.
Why: on the two held-out cells furthest from the 1/5 goal (emeraldrapids L1, Zen 3 L2) a config within 95% lies
exactly two knobs from the first design's best (tile_f with tile_y: 1 of 15 such configs; tile_rc with tile_rx: 1 of 3)."""
import itertools, os, sys
from pathlib import Path

import numpy as np

from replaycells import run_cells
from tensortune.space import Config
from tensortune.strategies.model_based import ModelBasedStrategy

mode = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
assert mode in ("on", "off")
LIMIT = int(os.environ.get("LIMIT", "8"))
PAIRS = []  # outcome counts at which a plan held pair probes


def pair_probes(space, inc, score, exclude, limit):
    base = inc.indices
    best = []
    for a, b in itertools.combinations(range(len(space.radices)), 2):
        alts = []
        for va in range(int(space.radices[a])):
            if va == base[a]:
                continue
            for vb in range(int(space.radices[b])):
                if vb == base[b]:
                    continue
                idx = list(base); idx[a] = va; idx[b] = vb
                c = Config(tuple(idx))
                if c not in exclude and space.is_valid(c):
                    alts.append(c)
        if alts:
            s = np.asarray(score(space.indices(alts)), dtype=np.float64)
            j = int(np.argmax(s))
            best.append((float(s[j]), a, b, alts[j]))
    best.sort(key=lambda t: (-t[0], t[1], t[2]))
    return [c for *_, c in best[:limit]]


orig = ModelBasedStrategy.sample


def sample(self, cands, rnd):
    if mode == "off" or not self.probes or not self.ys or max(self.ys) <= 0:
        return orig(self, cands, rnd)
    best = int(np.argmax(np.array(self.ys)))
    n = len(self.ys)
    if not (n - 2 * self.plan_size <= best < n - self.plan_size):
        return orig(self, cands, rnd)
    pairs = pair_probes(self.space, self.xs[best], self.score, self.visited, LIMIT)
    if not pairs:
        return orig(self, cands, rnd)
    PAIRS.append(n)
    taken = set(pairs)
    if self._explore():
        k = min(self.plan_size, self.explore_floor - n)
        rand = self.space.sample(max(k - len(pairs), 0), self.rng, exclude=set(self.visited) | taken)
        self._explored.update(rand)
        return (pairs + rand)[: self.plan_size]
    rest = [c for c in self.sampler.select([(c, v) for c, v in cands if c not in taken], self.plan_size,
                                           self.space, self.visited, self.rng) if c not in taken]
    return (rest[: self.probe_lead] + pairs + rest[self.probe_lead:])[: self.plan_size]


ModelBasedStrategy.sample = sample


def pairs_at():
    got = {"pairs_at": list(PAIRS)}
    PAIRS.clear()
    return got


run_cells(mode, seeds, out, pairs_at, default_cells="emeraldrapids/L1")
