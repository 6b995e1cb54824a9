"""Per-task best time (us), GFLOP/s and measurements of whole-model runs side by side, from their `tune --out`
JSON files, and the sum of best time x calls (the tuned kernels' share of a forward pass).
Usage: python tasks.py models/A.json models/B.json ..."""
import json
import sys

runs = sys.argv[1:]
D = [{t["name"]: t for t in json.load(open(r))["tasks"]} for r in runs]
tot = [0.0] * len(runs)
print(f"| task | calls | " + " | ".join(r.split("/")[-1].removesuffix(".json") for r in runs) + " |")
print("|---|---|" + "---|" * len(runs))
for n, t0 in D[0].items():
    row = []
    for i, d in enumerate(D):
        t = d.get(n)
        if t is None or not t.get("best_s"):
            row.append("-")
            continue
        us = t["best_s"] * 1e6
        tot[i] += us * t["calls"]
        row.append(f"{us:.1f} us, {t['flops'] / t['best_s'] / 1e9:.1f} GFLOP/s ({t['trials']})")
    print(f"| {n[:48]} | {t0['calls']} | " + " | ".join(row) + " |")
print("| **sum x calls** | | " + " | ".join(f"**{x / 1e3:.3f} ms**" for x in tot) + " |")
