# held-out L1 (or another layer) in replay at a long budget: measurements to 95% of the table's optimum
import sys, json, os
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.transfer.corpus import default_corpus
D = sys.argv[1]; layer = sys.argv[2]; recipe = sys.argv[3]; transfer = sys.argv[4] == 'with'
seeds = [int(s) for s in sys.argv[5].split(',')]; trials = int(sys.argv[6]); out = sys.argv[7]
gts = {l: load_table(l, D) for l in ['L1', 'L2', 'L7', 'L8']}
corp = default_corpus(gts['L1'].meta.get('machine', {}).get('llvm_cpu')) if transfer else None
gt = gts[layer]
o = max(gt.task.flops / c for c in gt.cost if 0 < c < float('inf')) / 1e9
res = []
for seed in seeds:
    r = run_one(gt, [g for l, g in gts.items() if l != layer], recipe, seed, trials, transfer, corpus=corp)
    n = next((i + 1 for i, v in enumerate(r['curve']) if v >= 0.95 * o), None)
    res.append((layer, recipe, transfer, seed, n, round(r['wall_s'], 1))); print(res[-1], flush=True)
    json.dump(res, open(out, 'w'))
