"""The latency set's other comparisons, from its results.json (same rounds): this stop's 200 with (round 8, or the
model-ranked first design) against stop 98's, and stop 98's 5x cell again. Usage: pairs.py RESULTS.json [r8|ranked]"""
import sys
import json

from tensortune.models.latency import pair_stats

doc = json.load(open(sys.argv[1]))
new = sys.argv[2] if len(sys.argv) > 2 else "r8"  # r8: round 8 (run.sh); ranked: the model-ranked first design
groups = {
    f"200 with, {new} / stop 98's (round 16, shipped first design)": [(f"{new}-200-with-s{s}", f"r16-200-with-s{s}")
                                                                      for s in range(3)],
    "stop 98's 5x cell, 200 with (round 16) / 1,000 without": [(f"r16-200-with-s{s}", f"1000-without-s{s}")
                                                               for s in range(3)],
}
for title, pairs in groups.items():
    st = pair_stats(doc, pairs, combine=True)
    print(f"== {title}")
    for p in st["pairs"]:
        print(f"  {p['a']}/{p['b']}: {p['geomean']:.3f} ({p['ci95'][0]:.3f}-{p['ci95'][1]:.3f}) {p['verdict']}, rounds {p['rounds']}")
    a = st.get("all")
    if a:
        print(f"  together: {a['geomean']:.3f} ({a['ci95'][0]:.3f}-{a['ci95'][1]:.3f}) {a['verdict']}")
