"""Per seed, measurements to 95% of the optimum and the first config's share, from a bench transfer results.json."""
import json
import sys

d = json.load(open(sys.argv[1]))
for r in d["runs"]:
    opt = d["optimum"][r["layer"]] if isinstance(d["optimum"], dict) else None
    c = r["curve"]
    to95 = next((i + 1 for i, g in enumerate(c) if g >= 0.95 * opt), None)
    print(f"{r['layer']} {r['recipe']} s{r['seed']} {'with   ' if r['transfer'] else 'without'} to 95%: {to95} "
          f"first {c[0] / opt:.3f} at 300 {c[-1] / opt:.3f}")
