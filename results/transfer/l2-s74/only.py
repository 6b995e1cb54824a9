"""Stop 74: held-out L2 with exactly the sources of a `bench transfer --layers L2,L7` run (L7's table and the
corpus), replay, autotvm with transfer: measurements to 95% per seed, and the sources each run used.
Usage: python only.py TABLES_DIR SEEDS [SOURCE_LAYERS]"""
import sys

from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach
from tensortune.transfer.corpus import default_corpus

tables, seeds = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
names = sys.argv[3].split(",") if len(sys.argv) > 3 else ["L7"]
held = load_table("L2", tables)
corpus = default_corpus(held.meta.get("machine", {}).get("llvm_cpu"))
for seed in seeds:
    r = run_one(held, [load_table(n, tables) for n in names], "autotvm", seed, 120, True, corpus=corpus)
    print(f"sources {names} seed {seed}: {trials_to_reach(r['curve'], 0.95 * held.optimum_gflops, rel_tol=1e-9)}"
          f"  ({len(r['sources'])} sources: {[s[:40] for s in r['sources']]})", flush=True)
