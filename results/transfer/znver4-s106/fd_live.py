"""Stop 106: held-out L3 and L4 on Zen 4 (stop 105's seven-pass file): each run's first measurements, each config's
confirmed share of the layer's optimum ('-': not in the confirmed set) / its in-run reading's share, and the configs
that confirmed best against the first design of the runs with transfer. Reads results only.
Usage: python fd_live.py [RESULTS.json [LAYERS]] (LAYERS comma-separated, L3,L4 by default; stop 107 ran it on its
Zen 3 file with L5,L6)."""
import json
import sys

from tensortune.bench.groundtruth import groundtruth_task

path = sys.argv[1] if len(sys.argv) > 1 else "../znver4-s105/autotvm7/results.json"
d = json.load(open(path))
for layer in (sys.argv[2] if len(sys.argv) > 2 else "L3,L4").split(","):
    sp = groundtruth_task(layer).space
    conf, opt = d["confirmed"][layer], d["optimum"][layer]
    print(f"== {layer}: optimum {opt:.1f} GFLOP/s (best confirmed median)")
    for r in (x for x in d["runs"] if x["layer"] == layer):
        cells = [(f"{conf[str(c)] / opt:.2f}" if str(c) in conf else "  - ") + f"/{v / opt:.2f}"
                 for c, v in zip(r["measured"][:20], r["readings"][:20], strict=True)]
        print(f"{'with' if r['transfer'] else 'w/o '} s{r['seed']}: " + " ".join(cells))
    for c, v in sorted(conf.items(), key=lambda kv: -kv[1])[:4]:
        print(f"  top  {v / opt:.3f} {sp.values(sp.config(int(c)))}")
    run = next(x for x in d["runs"] if x["layer"] == layer and x["transfer"] and x["seed"] == 0)
    for c in run["measured"][:8]:
        share = f"{conf[str(c)] / opt:.3f}" if str(c) in conf else "  -  "
        print(f"  first design {share} {sp.values(sp.config(int(c)))}")
