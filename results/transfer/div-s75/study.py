"""Stop 75: a diverse plan with transfer (``tuners.recipes.TRANSFER_DIVERSITY``, AutoTVM's submodular pick among the
top r x plan candidates) against the top of the plan, replay, leave one layer out (as `tensortune bench transfer
--features knobs+corpus`), autotvm with transfer, interleaved per seed. Prints per layer and variant the median
measurements to 95% of the table's optimum.
Usage: python study.py TABLES_DIR LAYERS SEEDS TRIALS OUT.json VARIANTS
Variants: code (the pool ratio of the code under test), top (0), divR (ratio R, e.g. div2)."""

import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer.corpus import default_corpus
from tensortune.tuners import recipes


def job(args):
    tables, held, variant, seed, trials = args
    if variant == "top":
        recipes.TRANSFER_DIVERSITY = 0.0
    elif variant.startswith("div"):
        recipes.TRANSFER_DIVERSITY = float(variant[3:])
    tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    sources = [t for n, t in tabs.items() if n != held]
    r = run_one(tabs[held], sources, "autotvm", seed, trials, True, corpus=corpus)
    opt = float(tabs[held].optimum_gflops)
    return {"layer": held, "variant": variant, "ratio": recipes.TRANSFER_DIVERSITY, "seed": seed,
            "reach": trials_to_reach(r["curve"], 0.95 * opt, rel_tol=1e-9), "best": r["curve"][-1] / opt}


def main() -> None:
    tables, layers, seeds, trials, out, variants = sys.argv[1], sys.argv[2].split(","), \
        [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4]), sys.argv[5], sys.argv[6].split(",")
    jobs = [(tables, held, v, seed, trials) for seed in seeds for held in layers for v in variants]
    with ProcessPoolExecutor(2, max_tasks_per_child=1) as ex:
        rows = list(ex.map(job, jobs))
    json.dump({"tables": tables, "trials": trials, "recipe": "autotvm", "runs": rows}, open(out, "w"), indent=1)
    for held in layers:
        for v in variants:
            ns = [r["reach"] for r in rows if (r["layer"], r["variant"]) == (held, v)]
            med = statistics.median([n if n is not None else float("inf") for n in ns])
            print(f"{held} {v:6s} median {med if med != float('inf') else 'never'}  "
                  f"({sum(n is not None for n in ns)}/{len(ns)} reach) {ns}", flush=True)


if __name__ == "__main__":
    main()
