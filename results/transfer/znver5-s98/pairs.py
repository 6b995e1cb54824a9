"""The latency set's other comparisons, from its results.json (same rounds): this stop's runs against stop 97's."""
import sys
import json

from tensortune.models.latency import pair_stats

doc = json.load(open(sys.argv[1]))
groups = {
    "200 with, this stop / stop 97": [(f"200-with-s{s}", f"s97-200-with-s{s}") for s in range(3)],
    "1,000 without, this stop / stop 97": [(f"1000-without-s{s}", f"s97-1000-without-s{s}") for s in range(3)],
    "stop 97's 5x cell, 200 with / 1,000 without": [(f"s97-200-with-s{s}", f"s97-1000-without-s{s}") for s in range(3)],
    "this stop's 200 with / stop 97's 1,000 without": [(f"200-with-s{s}", f"s97-1000-without-s{s}") for s in range(3)],
}
for title, pairs in groups.items():
    st = pair_stats(doc, pairs, combine=True)
    print(f"== {title}")
    for p in st["pairs"]:
        print(f"  {p['a']}/{p['b']}: {p['geomean']:.3f} ({p['ci95'][0]:.3f}-{p['ci95'][1]:.3f}) {p['verdict']}, rounds {p['rounds']}")
    a = st.get("all")
    if a:
        print(f"  together: {a['geomean']:.3f} ({a['ci95'][0]:.3f}-{a['ci95'][1]:.3f}) {a['verdict']}")
