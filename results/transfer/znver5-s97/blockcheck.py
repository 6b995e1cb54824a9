"""Which first designs change if nearest_config prefers a register block of exactly the source's size (among the
candidates) where one is valid. Replay cells (22) with the table's share, and Zen 5 live L3-L6 (no table: config ids)."""
import sys, itertools
from pathlib import Path
import numpy as np
import tensortune.transfer.features as F
from tensortune.bench.groundtruth import load_table, groundtruth_task
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
from tensortune.space import Config
T = Path("/work/main/results/transfer")
orig = F.TransferFeatures.nearest_config
MODE = {"on": False}
def exact(self, knob_features, candidates=4):
    if not MODE["on"] or not self._register_block:
        return orig(self, knob_features, candidates)
    dists, wants, col = [], [], 0
    for table, w, fixed in zip(self._tables, self._mapping_weights, self._fixed_factors, strict=True):
        want = self._fold(np.array(knob_features[col: col + table.shape[1]], dtype=np.float64), table, fixed)
        dists.append(np.sum(w * (table - want) ** 2, axis=1)); wants.append(want); col += table.shape[1]
    base = [int(np.argmin(d)) for d in dists]
    target = sum(float(wants[i][c]) for i, cs in self._register_block for c in cs)
    options = [(i, np.argsort(dists[i], kind="stable")[:candidates]) for i, _ in self._register_block]
    scored = []
    for pick in itertools.product(*(opts for _, opts in options)):
        size = sum(float(self._tables[i][o][c]) for (i, cs), o in zip(self._register_block, pick) for c in cs)
        d = sum(float(dists[i][o]) for (i, _), o in zip(options, pick))
        scored.append((abs(size - target) > 1e-6, d + 4.0 * (size - target) ** 2, pick))
    for *_, pick in sorted(scored, key=lambda t: t[:2]):
        idx = list(base)
        for (i, _), o in zip(options, pick): idx[i] = int(o)
        cfg = Config(tuple(idx))
        if self.space.is_valid(cfg): return cfg
    return Config(tuple(base))
F.TransferFeatures.nearest_config = exact
cells = (T / "znver5-s93" / "cells.txt").read_text().strip().split(",")
def fd(p):
    MODE["on"] = False; a = p.initial_configs(8)
    p.features.__dict__.pop("_x", None)
    MODE["on"] = True; b = p.initial_configs(8)
    MODE["on"] = False
    return a, b
for cell in cells:
    cpu, held = cell.split("/")
    d = None if cpu == "znver5" else str(T / f"tables-{cpu}")
    tabs = {n: load_table(n, d) for n in (["L1", "L8"] if cpu == "znver4" else ["L1", "L2", "L7", "L8"])}
    gt = tabs[held]; sp = gt.task.space
    at = {int(i): j for j, i in enumerate(gt.index)}
    share = lambda c: round(float(gt.gflops[at[sp.index_of(c)]] / gt.optimum_gflops), 3) if sp.index_of(c) in at else None
    p = TransferPrior.from_tables(gt.task, [t for n, t in tabs.items() if n != held], 0, corpus=default_corpus(cpu))
    a, b = fd(p)
    print(f"{cell:30s} {'CHANGED' if a != b else 'same   '} now {[share(c) for c in a]} exact {[share(c) for c in b]}", flush=True)
tabs = {n: load_table(n) for n in ["L1", "L2", "L7", "L8"]}
for held, srcs in [("L1", ["L2", "L7", "L8"]), ("L3", ["L1","L2","L7","L8"]), ("L4", ["L1","L2","L7","L8"]), ("L5", ["L1","L2","L7","L8"]), ("L6", ["L1","L2","L7","L8"])]:
    task = groundtruth_task(held); sp = task.space
    p = TransferPrior.from_tables(task, [tabs[n] for n in srcs], 0, corpus=default_corpus("znver5"))
    a, b = fd(p)
    print(f"znver5 live {held:4s} {'CHANGED' if a != b else 'same   '} now {[sp.index_of(c) for c in a]} exact {[sp.index_of(c) for c in b]}", flush=True)
