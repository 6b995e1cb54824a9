"""Stop 81: how noisy a latency set's pairs are (sd of the per-round log ratio) and whether a contender's place
in its round's start order moves its time (the interleaved protocol keeps ``start``; older sets have none).

python analyse.py results.json [results.json ...]"""
import json
import math
import sys

import numpy as np

for path in sys.argv[1:]:
    doc = json.load(open(path))
    rounds: dict = {}
    for m in doc["measurements"]:
        rounds.setdefault(m["round"], {})[m["name"]] = m
    print(f"{path}: {len(rounds)} rounds, protocol {doc['config'].get('protocol', 'a process per measurement')}")
    for a, b in doc.get("pairs", []):
        logs = np.array([math.log(v[a]["ms"] / v[b]["ms"]) for v in rounds.values() if a in v and b in v])
        print(f"  {a} / {b}: geomean {math.exp(logs.mean()):.3f}, sd of log ratio {logs.std(ddof=1):.3f}")
    if not any("start" in m for m in doc["measurements"]):
        continue
    # each time relative to the contender's own geometric mean over rounds, then relative to the round's mean of
    # those (the host's phase), by start place
    names = doc["config"]["names"]
    own = {n: np.mean([math.log(v[n]["ms"]) for v in rounds.values() if n in v]) for n in names}
    by_place: dict = {}
    for v in rounds.values():
        rel = {n: math.log(m["ms"]) - own[n] for n, m in v.items()}
        mean = np.mean(list(rel.values()))
        for n, m in v.items():
            by_place.setdefault(m["start"], []).append(rel[n] - mean)
    print("  start place: mean log time against the round's (a positive value: slower when started there)")
    for k in sorted(by_place):
        x = np.array(by_place[k])
        print(f"    {k}: {x.mean():+.4f} (se {x.std(ddof=1) / math.sqrt(len(x)):.4f}, n {len(x)})")
