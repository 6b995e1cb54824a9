import sys, time, numpy as np
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
from tensortune.core.stats import trials_to_reach
layer = sys.argv[1]; recipe = sys.argv[2] if len(sys.argv) > 2 else "autotvm"
seeds = range(int(sys.argv[3]) if len(sys.argv) > 3 else 9)
held = load_table(layer)
others = [load_table(x) for x in ("L1","L2","L7","L8") if x != layer]
corpus = default_corpus("znver5")
opt = held.optimum_gflops
res = {}
for transfer in (True, False) if "--both" in sys.argv else (True,):
    out = []
    for s in seeds:
        t = time.time()
        r = run_one(held, others, recipe, s, 120, transfer, corpus=corpus)
        c = np.array(r["curve"]) / opt
        hit = next((i + 1 for i, v in enumerate(c) if v >= 0.95), None)
        out.append(hit if hit else 10**9)
        print(layer, recipe, "with" if transfer else "without", s, hit, [round(c[i], 2) for i in (0, 7, 15, 31, 63) if i < len(c)], f"{time.time()-t:.1f}s", flush=True)
    print("median", np.median(out))
