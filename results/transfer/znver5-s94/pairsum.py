"""Median measurements to 95%, the shipped code (stop 93's fb-on.json, and lanes.json where stop 94 moved the turned
config) against pairs.py on, seeds 0-2."""
import json, statistics as st
base = json.load(open("../znver5-s93/fb-on.json")); base.update(json.load(open("lanes.json")))
on = {**json.load(open("pairs-a.json")), **json.load(open("pairs-b.json"))}
cells = sorted({k.rsplit("/", 1)[0] for k in on})
med = lambda xs: st.median([10**6 if x is None else x for x in xs])
for c in cells:
    b = [base[f"{c}/{s}"]["reach"] for s in range(3)]
    o = [on[f"{c}/{s}"]["reach"] for s in range(3)]
    print(f"{c:30s} shipped {med(b)!s:>5} {b}  pairs {med(o)!s:>5} {o}  {'SAME' if b == o else 'CHANGED'}")
