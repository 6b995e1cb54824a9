"""Stop 102: why held-out L3 (chameleon, live) reads 111 measurements to 95% against the median of the passes' medians
and 12-13 in each pass alone: per run, where it first ran a config within 95% of each pass's optimum and of the combined
optimum, and that config's share in each pass. Usage (in this directory): python passes.py [LAYER]"""
import json
import statistics
import sys

layer = sys.argv[1] if len(sys.argv) > 1 else "L3"
d = json.load(open("chameleon/results.json"))
passes = [p["medians"] for p in d["confirmed_passes"][layer]]
comb = d["confirmed"][layer]
targets = [("combined", comb)] + [(f"pass {i + 1}", p) for i, p in enumerate(passes)]
for r in d["runs"]:
    if r["layer"] != layer:
        continue
    print(f"== {layer} seed {r['seed']} {'with' if r['transfer'] else 'without'}")
    for name, med in targets:
        opt = max(med.values())
        hit = next(((i + 1, c) for i, c in enumerate(r["measured"]) if str(c) in med and med[str(c)] >= 0.95 * opt), None)
        if hit is None:
            print(f"   {name:9s} optimum {opt:6.1f}: never")
            continue
        shares = [round(p[str(hit[1])] / max(p.values()), 3) for p in passes]
        print(f"   {name:9s} optimum {opt:6.1f}: measurement {hit[0]:3d}, config {hit[1]}, share per pass {shares}, "
              f"combined {comb[str(hit[1])] / max(comb.values()):.3f}")
best = max(comb, key=comb.get)
print(f"combined optimum: config {best}, per pass {[p[best] for p in passes]}, median {statistics.median(p[best] for p in passes)}")
