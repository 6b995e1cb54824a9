"""Experiment (stop 94): where in the first design the turned register tile (AXIS_VARIANT) goes.
usage: axispos.py shipped|next|lanes SEEDS OUT.json    env CELLS, TRIALS (300), RECIPE (autotvm)
  shipped: the code as it is (before stop 94 the variant took the last place; since, 'lanes')
  next:    the variant moved to just after the config it turns
  lanes:   the variant moved to just after the turned config's lane variants (where there are any)
Writes, per cell and seed, the measurements to 95% of the table's optimum, and the first design's positions."""
import sys
from pathlib import Path

from replaycells import run_cells
from tensortune.transfer.prior import TransferPrior

mode = sys.argv[1]; seeds = [int(s) for s in sys.argv[2].split(",")]; out = Path(sys.argv[3])
assert mode in ("shipped", "next", "lanes")
FIRST = []
orig = TransferPrior.initial_configs


def initial_configs(self, k=8, per_source=None, lane_variants=True, axis_variant=True):
    got = orig(self, k, per_source, lane_variants, axis_variant)
    base = orig(self, k, per_source, lane_variants, False)
    new = [c for c in got if c not in base]  # the turned config (the shipped code since stop 94 places it itself)
    turned = new[0] if new and axis_variant else None
    if turned is not None and mode != "shipped":
        assert got[-1] == turned, "run next/lanes on the code before stop 94"
        got = got[:-1]
        own = self.features
        # the config it turns: the one whose axis_variant it is
        src = next(i for i, c in enumerate(got) if own.axis_variant(c) == turned)
        at = src + 1
        if mode == "lanes":
            lanes = own.lane_variants(got[src])
            while at < len(got) and got[at] in lanes:
                at += 1
        got.insert(at, turned)
    FIRST.append({"turned_at": None if turned is None else got.index(turned) + 1, "k": len(got)})
    return got


TransferPrior.initial_configs = initial_configs


def first():
    got = {"first": list(FIRST)}
    FIRST.clear()
    return got


run_cells(mode, seeds, out, first)
