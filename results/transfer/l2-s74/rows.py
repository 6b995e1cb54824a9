"""Stop 74: the sources' row sample, replay, leave one layer out (as `tensortune bench transfer --features
knobs+corpus`), autotvm with transfer, interleaved per seed. Variants (the code's figures are stop 72's
`../lane-rule-s72/autotvm-*.json`, variant `rule`, seed by seed the same code path):
  allrows: no cap on a source's rows (every row of a table; the code keeps the 32 best and a random share up to 1,024);
  ownrng: each source's rows drawn from a generator of its own (the run's seed and a hash of the source's
          throughputs) instead of one generator shared in table order, so a table the similarity cut leaves out
          changes nothing.
Usage: python rows.py TABLES_DIR LAYERS SEEDS TRIALS OUT.json VARIANTS"""

import json
import statistics
import sys
import zlib
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus

ORIG_ROW_SAMPLE = P._row_sample


def own_rng(seed):
    def row_sample(y, rng):
        return ORIG_ROW_SAMPLE(y, np.random.default_rng([seed, zlib.crc32(np.asarray(y, dtype=np.float64).tobytes())]))
    return row_sample


def job(args):
    tables, held, variant, seed, trials = args
    tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    if variant == "allrows":
        P.MAX_ROWS_PER_SOURCE = 10**9
    elif variant == "ownrng":
        P._row_sample = own_rng(seed)
    r = run_one(tabs[held], [t for n, t in tabs.items() if n != held], "autotvm", seed, trials, True, corpus=corpus)
    opt = float(tabs[held].optimum_gflops)
    return {"layer": held, "variant": variant, "recipe": "autotvm", "seed": seed,
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
            print(f"{held} autotvm {v:8s} median {med if med != float('inf') else 'never'}  "
                  f"({sum(n is not None for n in ns)}/{len(ns)} reach) {ns}", flush=True)


if __name__ == "__main__":
    main()
