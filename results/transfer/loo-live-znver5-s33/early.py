"""Live layers of the LOO: median (over 3 seeds) best-so-far at 8, 16, 32 and 120 measurements as a share of the
best any run of the layer found, with and without transfer."""
import json, statistics, sys
d = json.load(open(sys.argv[1] if len(sys.argv) > 1 else "results.json"))
print("| held out | recipe | mode | @8 | @16 | @32 | @120 | sources |")
print("|---|---|---|---|---|---|---|---|")
for L in d["config"]["live"]:
    opt = d["optimum"][L]
    for rec in d["config"]["recipes"]:
        for t in (False, True):
            rs = [r for r in d["runs"] if r["layer"] == L and r["recipe"] == rec and r["transfer"] == t]
            at = lambda n: statistics.median(r["curve"][min(n, len(r["curve"])) - 1] / opt for r in rs)
            src = ", ".join(sorted({s for r in rs for s in r["sources"]})) or ("-" if not t else "none similar enough")
            print(f"| {L} | {rec} | {'with' if t else 'without'} | {at(8):.0%} | {at(16):.0%} | {at(32):.0%} | {at(120):.0%} | {src} |")
