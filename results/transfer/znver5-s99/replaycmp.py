"""Side by side: replay-0.json (shipped first design) and replay-1.json (model-ranked), measurements to 95% of the
table's optimum per cell and seed, and the median over seeds (never reached counts as past the budget)."""
import json
import sys

import numpy as np

a, b = (json.load(open(f)) for f in sys.argv[1:3])
cells = sorted({k.rsplit("/", 1)[0] for k in a})
worse = better = 0
for c in cells:
    ra = [a[k]["reach"] for k in sorted(a) if k.rsplit("/", 1)[0] == c]
    rb = [b.get(k, {}).get("reach", -1) for k in sorted(a) if k.rsplit("/", 1)[0] == c]
    med = lambda r: float(np.median([x if x is not None else 10**6 for x in r]))
    ma, mb = med(ra), med(rb)
    tag = "same" if ma == mb else ("RANKED BETTER" if mb < ma else "RANKED WORSE")
    better += mb < ma; worse += mb > ma
    print(f"{c:32s} shipped {str(ra):22s} ranked {str(rb):22s} median {ma:g} -> {mb:g}  {tag}")
print(f"cells: {len(cells)}, ranked better in {better}, worse in {worse}")
