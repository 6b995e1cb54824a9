"""Stop 74: held-out layers with some sources left out or reweighed, replay, leave one layer out (as `tensortune
bench transfer --features knobs+corpus`), interleaved per seed. Prints per layer and variant the median
measurements to 95%.
Usage: python study.py TABLES_DIR LAYERS SEEDS TRIALS OUT.json VARIANTS [RECIPE]
Variants: code; noLx (table layer Lx is no source); nocorpus (the corpus's tasks are no sources)."""

import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer.corpus import default_corpus


def job(args):
    tables, held, variant, recipe, seed, trials = args
    tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    drop = {variant[2:]} if variant.startswith("noL") else set()
    if variant == "nocorpus":
        corpus = None
    sources = [t for n, t in tabs.items() if n != held and n not in drop]
    r = run_one(tabs[held], sources, recipe, seed, trials, True, corpus=corpus)
    opt = float(tabs[held].optimum_gflops)
    return {"layer": held, "variant": variant, "recipe": recipe, "seed": seed,
            "reach": trials_to_reach(r["curve"], 0.95 * opt, rel_tol=1e-9), "best": r["curve"][-1] / opt}


def main() -> None:
    tables, layers, seeds, trials, out, variants = sys.argv[1], sys.argv[2].split(","), \
        [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4]), sys.argv[5], sys.argv[6].split(",")
    recipe = sys.argv[7] if len(sys.argv) > 7 else "autotvm"
    jobs = [(tables, held, v, recipe, seed, trials) for seed in seeds for held in layers for v in variants
            if v[2:] != held]
    with ProcessPoolExecutor(2, max_tasks_per_child=1) as ex:
        rows = list(ex.map(job, jobs))
    json.dump({"tables": tables, "trials": trials, "recipe": recipe, "runs": rows}, open(out, "w"), indent=1)
    for held in layers:
        for v in variants:
            ns = [r["reach"] for r in rows if (r["layer"], r["variant"]) == (held, v)]
            if not ns:
                continue
            med = statistics.median([n if n is not None else float("inf") for n in ns])
            print(f"{held} {recipe} {v:8s} median {med if med != float('inf') else 'never'}  "
                  f"({sum(n is not None for n in ns)}/{len(ns)} reach) {ns}", flush=True)


if __name__ == "__main__":
    main()
