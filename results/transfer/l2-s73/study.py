"""Stop 73: variants of the transferred search, replay, leave one layer out (as `tensortune bench transfer
--features knobs+corpus`), interleaved per seed. Prints per layer and variant the median measurements to 95%.
Usage: python study.py TABLES_DIR LAYERS SEEDS TRIALS OUT.json VARIANTS [RECIPE]
Variants: code; notrust (no source-trust cut); fade32 (sources fade on 32); localM (each plan opens with the M
best-scored unmeasured configs one knob away from the incumbent)."""

import json
import statistics
import sys
from concurrent.futures import ProcessPoolExecutor

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.space import Config
from tensortune.strategies import model_based as MB
from tensortune.transfer import prior as P
from tensortune.transfer.corpus import default_corpus

ORIG_SAMPLE = MB.ModelBasedStrategy.sample


def one_knob_neighbours(space, cfg):
    # every other option of one knob (SearchSpace.neighbors moves a knob one option up or down only)
    out = []
    for pos, r in enumerate(space.radices):
        for v in range(int(r)):
            if v != cfg.indices[pos]:
                c = Config(cfg.indices[:pos] + (v,) + cfg.indices[pos + 1:])
                if space.is_valid(c):
                    out.append(c)
    return out


def local_sample(m):
    def sample(self, cands, rnd):
        plan = ORIG_SAMPLE(self, cands, rnd)
        if not self.plan_first or not self.ys or max(self.ys) <= 0:
            return plan
        best = self.xs[int(np.argmax(self.ys))]
        nb = [c for c in one_knob_neighbours(self.space, best) if c not in self.visited]
        if not nb:
            return plan
        sc = self.score(self.space.indices(nb))
        top = [nb[i] for i in np.argsort(-sc, kind="stable")[:m]]
        return (top + [c for c in plan if c not in set(top)])[:len(plan)]
    return sample


def job(args):
    tables, held, variant, recipe, seed, trials = args
    tabs = {n: load_table(n, tables) for n in ("L1", "L2", "L7", "L8")}
    corpus = default_corpus(tabs[held].meta.get("machine", {}).get("llvm_cpu"))
    if variant == "notrust":
        P.TRUST_MIN_OWN = 10**9
    elif variant == "fade32":
        P.FADE = 32
    elif variant.startswith("local"):
        MB.ModelBasedStrategy.sample = local_sample(int(variant[5:]))
    r = run_one(tabs[held], [t for n, t in tabs.items() if n != held], recipe, seed, trials, True, corpus=corpus)
    opt = float(tabs[held].optimum_gflops)
    return {"layer": held, "variant": variant, "recipe": recipe, "seed": seed,
            "reach": trials_to_reach(r["curve"], 0.95 * opt, rel_tol=1e-9), "best": r["curve"][-1] / opt}


def main() -> None:
    tables, layers, seeds, trials, out, variants = sys.argv[1], sys.argv[2].split(","), \
        [int(s) for s in sys.argv[3].split(",")], int(sys.argv[4]), sys.argv[5], sys.argv[6].split(",")
    recipe = sys.argv[7] if len(sys.argv) > 7 else "autotvm"
    jobs = [(tables, held, v, recipe, seed, trials) for seed in seeds for held in layers for v in variants]
    with ProcessPoolExecutor(2, max_tasks_per_child=1) as ex:
        rows = list(ex.map(job, jobs))
    json.dump({"tables": tables, "trials": trials, "recipe": recipe, "runs": rows}, open(out, "w"), indent=1)
    for held in layers:
        for v in variants:
            ns = [r["reach"] for r in rows if (r["layer"], r["variant"]) == (held, v)]
            med = statistics.median([n if n is not None else float("inf") for n in ns])
            print(f"{held} {recipe} {v:8s} median {med if med != float('inf') else 'never'}  "
                  f"({sum(n is not None for n in ns)}/{len(ns)} reach) {ns}", flush=True)


if __name__ == "__main__":
    main()
