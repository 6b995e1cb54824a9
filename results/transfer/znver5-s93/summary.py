import json, sys, statistics
on = json.load(open("fb-on.json")); off = json.load(open("fb-off.json"))
cells = open("cells.txt").read().strip().split(",")
def med(v):
    v = [x if x is not None else 10**9 for x in v]
    m = statistics.median(v); return "never" if m >= 10**9 else m
for c in cells:
    for seeds in ([0, 1, 2], list(range(9))):
        a = [on.get(f"{c}/{s}") for s in seeds]; b = [off.get(f"{c}/{s}") for s in seeds]
        if None in a or None in b:
            continue
        ra = [x["reach"] for x in a]; rb = [x["reach"] for x in b]
        fa = [x["final"] for x in a]; fb = [x["final"] for x in b]
        trig = sum(bool(x["triggered"]) for x in b)
        print(f"{c:32s} seeds {seeds[0]}-{seeds[-1]}: reach off {med(rb)} {rb} -> on {med(ra)} {ra}; final off {min(fb)}-{max(fb)} on {min(fa)}-{max(fa)}; discredited in {trig}/{len(seeds)} off-runs {'SAME' if ra == rb else 'CHANGED'}")
