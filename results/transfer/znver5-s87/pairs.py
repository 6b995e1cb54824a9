"""Stop 87: the per-seed and combined ratios of a latency set (``models.latency.pair_stats``): the probes' 200 with
against the 1,000 without, the code before's 200 with against the same, and probes against before.
Usage: pairs.py latency-MODEL/results.json SEEDS (e.g. 0,1,2)"""
import json, sys
from tensortune.models.latency import pair_stats

doc = json.load(open(sys.argv[1]))
seeds = sys.argv[2].split(",")
for a, b in (("probes", "1000-without"), ("before", "1000-without"), ("probes", "before")):
    pairs = [(f"{a}-s{s}", f"{b}-s{s}") for s in seeds]
    st = pair_stats(doc, pairs, combine=True)
    for (x, y), p in zip(pairs, st["pairs"]):
        print(f"{x} / {y}: {p['geomean']:.3f} ({p['ci95'][0]:.3f}-{p['ci95'][1]:.3f}), {p['a_faster']} of {p['rounds']} faster, {p['verdict']}")
    al = st["all"]
    print(f"{a} / {b}, seeds {','.join(seeds)} together: {al['geomean']:.3f} ({al['ci95'][0]:.3f}-{al['ci95'][1]:.3f}), "
          f"{al['a_faster']} of {al['rounds']}, {al['verdict']}\n")
