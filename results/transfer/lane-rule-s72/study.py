"""Stop 72: the first design's lane variants always (stop 71), never (before stop 71), and only where the mapped
configs all hold one lane count (the rule of stop 72, the code), replay, leave one layer out.

Usage: python study.py TABLES_DIR LAYERS RECIPES SEEDS TRIALS OUT.json [VARIANTS]
Every held-out layer's runs with transfer (knob features, the tables' CPU's shipped corpus as further sources,
as `tensortune bench transfer --features knobs+corpus`), the first designs named (comma-separated, default all
three) interleaved per seed. Replay is deterministic: stop 71's JSON files hold "never" (its "before") and
"always" (its "lanes") for the cells it ran, so this stop runs the rule everywhere and the others where missing. Prints,
per layer and recipe, the median measurements to 95% of the table's optimum."""

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
from tensortune.transfer.features import TransferFeatures

CODE = P.TransferPrior.initial_configs
NEVER = partialmethod(CODE, lane_variants=False)
LANES_OF = TransferFeatures.lanes_of
VARIANTS = ("never", "always", "rule")


def job(args):
    tables, held, variant, recipe, seed, trials = args
    tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    P.TransferPrior.initial_configs = NEVER if variant == "never" else CODE
    # "always": every mapped config reads as one lane count, so the rule never holds the variants back
    TransferFeatures.lanes_of = (lambda self, cfg: 0) if variant == "always" else LANES_OF
    r = run_one(tabs[held], [t for n, t in tabs.items() if n != held], recipe, seed, trials, True, corpus=corpus)
    opt = float(tabs[held].optimum_gflops)
    return {"layer": held, "variant": variant, "recipe": recipe, "seed": seed,
            "reach": trials_to_reach(r["curve"], 0.95 * opt, rel_tol=1e-9), "best": r["curve"][-1] / opt,
            "first3": [round(v / opt, 3) for v in r["curve"][:3]]}


def main() -> None:
    tables, layers, recipes, seeds, trials, out = sys.argv[1], sys.argv[2].split(","), sys.argv[3].split(","), \
        [int(s) for s in sys.argv[4].split(",")], int(sys.argv[5]), sys.argv[6]
    variants = sys.argv[7].split(",") if len(sys.argv) > 7 else VARIANTS
    jobs = [(tables, held, v, rec, seed, trials) for seed in seeds for held in layers for rec in recipes
            for v in variants]
    with ProcessPoolExecutor(2) as ex:
        rows = list(ex.map(job, jobs))
    json.dump({"tables": tables, "trials": trials, "runs": rows}, open(out, "w"), indent=1)
    for held in layers:
        for rec in recipes:
            for v in variants:
                ns = [r["reach"] for r in rows if (r["layer"], r["recipe"], r["variant"]) == (held, rec, v)]
                med = statistics.median([n if n is not None else float("inf") for n in ns])
                print(f"{held} {rec:9s} {v:6s} median {med if med != float('inf') else 'never'}  "
                      f"({sum(n is not None for n in ns)}/{len(ns)} reach) {ns}", flush=True)


if __name__ == "__main__":
    main()
