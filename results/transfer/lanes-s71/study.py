"""Stop 71: the first design with and without the lane variants (replay, leave one layer out).

Usage: python study.py TABLES_DIR LAYERS RECIPES SEEDS TRIALS OUT.json
Every held-out layer's runs with transfer (knob features, the tables' CPU's shipped corpus as further sources,
as `tensortune bench transfer --features knobs+corpus`), the first design with the lane variants (the code)
and without them (``initial_configs(lane_variants=False)``, the code before stop 71), interleaved per seed.
Prints, per layer and recipe, the median measurements to 95% of the table's optimum."""

import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor
from functools import partialmethod

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus

WITH = P.TransferPrior.initial_configs
WITHOUT = partialmethod(WITH, lane_variants=False)


def job(args):
    tables, held, variant, recipe, seed, trials = args
    tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    P.TransferPrior.initial_configs = WITH if variant == "lanes" else WITHOUT
    r = run_one(tabs[held], [t for n, t in tabs.items() if n != held], recipe, seed, trials, True, corpus=corpus)
    opt = float(tabs[held].optimum_gflops)
    return {"layer": held, "variant": variant, "recipe": recipe, "seed": seed,
            "reach": trials_to_reach(r["curve"], 0.95 * opt, rel_tol=1e-9), "best": r["curve"][-1] / opt,
            "first3": [round(v / opt, 3) for v in r["curve"][:3]]}


def main() -> None:
    tables, layers, recipes, seeds, trials, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(","), \
        [int(s) for s in sys.argv[4].split(",")], int(sys.argv[5]), sys.argv[6]
    jobs = [(tables, held, v, rec, seed, trials) for seed in seeds for held in layers for rec in recipes
            for v in ("before", "lanes")]
    with ProcessPoolExecutor(2) as ex:
        rows = list(ex.map(job, jobs))
    json.dump({"tables": tables, "trials": trials, "runs": rows}, open(out, "w"), indent=1)
    for held in layers:
        for rec in recipes:
            for v in ("before", "lanes"):
                ns = [r["reach"] for r in rows if (r["layer"], r["recipe"], r["variant"]) == (held, rec, v)]
                med = statistics.median([n if n is not None else float("inf") for n in ns])
                print(f"{held} {rec:9s} {v:6s} median {med if med != float('inf') else 'never'}  "
                      f"({sum(n is not None for n in ns)}/{len(ns)} reach) {ns}", flush=True)


if __name__ == "__main__":
    main()
