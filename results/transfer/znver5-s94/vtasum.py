"""Summary of vta.py: per held-out layer, measurements to 95% of the best any run of the layer measured (the source
run of it included), per seed, for no transfer, transfer as shipped, and transfer without the stop-93 rule."""
import gzip, json, statistics, sys
from pathlib import Path
res = {}
for d in sys.argv[1:]:
    res.update(json.loads((Path(d) / "results.json").read_text()))
    src = Path(d) / "sources"
best = {}
for l in range(1, 12):  # the source run of each layer
    f = src / f"{l}.jsonl"
    text = f.read_text() if f.exists() else gzip.decompress((src / f"{l}.jsonl.gz").read_bytes()).decode()
    for line in text.splitlines():
        r = json.loads(line)
        if r["kind"] == "trial" and r["costs"] and r["error"] == "NONE":
            best[l] = max(best.get(l, 0.0), r["flops"] / statistics.mean(r["costs"]) / 1e9)
for k, v in res.items():
    h = int(k.split("/")[0]); best[h] = max(best.get(h, 0.0), max(v["curve_gflops"]))
modes = ("none", "on", "noexplore")
med = lambda xs: statistics.median([10**6 if x is None else x for x in xs])
tot = {m: [] for m in modes}
print(f"{'layer':6s} {'best GFLOP/s':>12s}  " + "  ".join(f"{m:>26s}" for m in modes) + "  explored (on)")
for h in sorted({int(k.split('/')[0]) for k in res}):
    seeds = sorted({int(k.split('/')[1]) for k in res if k.startswith(f"{h}/")})
    cells = []
    for m in modes:
        reach = []
        for s in seeds:
            c = res.get(f"{h}/{s}/{m}", {}).get("curve_gflops")
            reach.append(next((i + 1 for i, x in enumerate(c) if x >= 0.95 * best[h]), None) if c else None)
        tot[m].append(med(reach))
        cells.append(f"{med(reach)!s:>5} {str(reach):>20s}")
    ex = [res.get(f"{h}/{s}/on", {}).get("explored") for s in seeds]
    print(f"{h:<6d} {best[h]:12.2f}  " + "  ".join(f"{c:>26s}" for c in cells) + f"  {ex}")
print("median of the layers' medians:", {m: statistics.median(v) for m, v in tot.items()})
