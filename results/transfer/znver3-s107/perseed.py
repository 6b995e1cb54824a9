"""Per-seed measurements to 95% of each held-out layer's optimum in a replay `bench transfer` results file, and
the first measurement's share of the optimum, by the report's own cell selection (stop 107).
Usage: python perseed.py loo/results.json"""
import json
import sys
from pathlib import Path

from tensortune.bench.transfer import _cell_runs
from tensortune.core.stats import trials_to_reach

doc = json.loads(Path(sys.argv[1]).read_text())
cfg = doc["config"]
for layer in cfg["layers"]:
    opt = doc["optimum"][layer]
    for recipe in cfg["recipes"]:
        for feats in cfg.get("features", ["knobs"]):
            for tr in (False, True):
                runs = _cell_runs(doc, layer, recipe, feats, tr)
                hits = [trials_to_reach(r["curve"], cfg["reach"] * opt) for r in runs]
                first = [round(r["curve"][0] / opt, 3) for r in runs]
                print(f"{layer} {recipe:9s} {'with' if tr else 'without':7s} to {cfg['reach']:.0%}: {hits}  first: {first}")
