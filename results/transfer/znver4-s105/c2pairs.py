"""Stop 105: the other pairs of confirm.sh's nine-library set, from its results.json (nothing measured): confirmed /
as tuned and as tuned / 1,000 without per seed, each also over seeds 0-2 (`pair_stats`, the report's own statistics).
Usage: python c2pairs.py latency-vgg16-c2/results.json"""
import json
import sys

from tensortune.models.latency import pair_stats

doc = json.load(open(sys.argv[1]))
for title, a, b in (("confirmed / as tuned", "200-with-c2-s{}", "200-with-s{}"),
                    ("as tuned / 1,000 without", "200-with-s{}", "1000-without-s{}")):
    st = pair_stats(doc, [(a.format(s), b.format(s)) for s in (0, 1, 2)], combine=True)
    print(title)
    print(json.dumps(st, indent=1, default=str)[:3000])
