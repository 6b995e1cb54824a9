"""Stop 86: the seeds of VGG-16's 5x cell together (``models.latency.pair_stats`` with combine), from this stop's
latency set: the fresh 200 with of each seed against its 1,000 without, and the same with the older libraries of
seeds 0 and 1 (stops 82 and 83). Usage: combine.py latency-vgg16/results.json"""
import json, sys
from tensortune.models.latency import pair_stats

doc = json.load(open(sys.argv[1]))
sets = {"fresh 200 with (s85 seed 0, s86 seeds 1-2)": [("200-with-s0", "1000-without-s0"),
                                                       ("200-with-s1", "1000-without-s1"),
                                                       ("200-with-s2", "1000-without-s2")],
        "older 200 with (s82 seed 0, s83 seed 1) + s86 seed 2": [("200-with-s0-s82", "1000-without-s0"),
                                                                 ("200-with-s1-s83", "1000-without-s1"),
                                                                 ("200-with-s2", "1000-without-s2")],
        "all five 200 with, each against its seed's 1,000 without": [
            ("200-with-s0", "1000-without-s0"), ("200-with-s0-s82", "1000-without-s0"),
            ("200-with-s1", "1000-without-s1"), ("200-with-s1-s83", "1000-without-s1"),
            ("200-with-s2", "1000-without-s2")]}
for name, pairs in sets.items():
    s = pair_stats(doc, pairs, combine=True)
    a = s["all"]
    print(f"{name}: geomean {a['geomean']:.3f} ({a['ci95'][0]:.3f}-{a['ci95'][1]:.3f}), "
          f"A faster in {a['a_faster']} of {a['rounds']} rounds, {a['verdict']}")
