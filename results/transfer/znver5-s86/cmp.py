import json, sys, statistics
runs = {f: json.load(open(f)) for f in sys.argv[1:]}
keys = sorted({k.rsplit("/", 1)[0] for d in runs.values() for k in d}, key=lambda s: (s.split("/")[0], s))
print("cpu/layer".ljust(34) + "".join(f.replace("replay-", "").replace(".json", "").rjust(26) for f in runs))
for k in keys:
    row = k.ljust(34)
    for f, d in runs.items():
        v = [d[x] for x in d if x.rsplit("/", 1)[0] == k]
        r = [x["reach"] or 999 for x in v]
        m = statistics.median(r) if r else float("nan")
        row += f"{('>120' if m > 120 else m)!s:>6} ({sum(x['reach'] is not None for x in v)}/{len(v)}) f8 {statistics.median([x['first8'] for x in v]) if v else 0:.3f}".rjust(26)
    print(row)
