"""Stop 107: each live run's in-run reading of its 1st, 2nd and 3rd measurement over that config's confirmed median,
next to the median of the same ratio over its other confirmed measurements (run_phase). Reads results only.
Usage: python firstread.py RESULTS.json"""
import json
import statistics
import sys

d = json.load(open(sys.argv[1]))
for layer in d["config"].get("live", []):
    conf = d["confirmed"][layer]
    for r in (x for x in d["runs"] if x["layer"] == layer):
        rat = [(i, v / conf[str(c)]) for i, (c, v) in enumerate(zip(r["measured"], r["readings"], strict=True))
               if conf.get(str(c), 0) > 0 and v > 0]
        head = " ".join(f"#{i + 1}:{x:.2f}" for i, x in rat if i < 3)
        rest = statistics.median(x for i, x in rat if i >= 3) if any(i >= 3 for i, _ in rat) else float("nan")
        print(f"{layer} {'with' if r['transfer'] else 'w/o '} s{r['seed']}: {head:32s} later median {rest:.2f} (n={sum(i >= 3 for i, _ in rat)})")
