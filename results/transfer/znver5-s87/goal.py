"""Stop 87: the issue's held-out goal per cell: median measurements to 95% with transfer (each file given) against
autotvm without transfer (the none-*.json runs, 400 measurements), and whether with <= 1/5 of without.
Usage: python3 goal.py NONE.json[,NONE2.json] A.json B.json ..."""
import json, statistics, sys

def load(fs):
    d = {}
    for f in fs.split(","):
        d.update(json.load(open(f)))
    return d

def med(d, cell):
    v = [d[k]["reach"] for k in d if k.rsplit("/", 1)[0] == cell]
    return (statistics.median([r or 10**6 for r in v]), sum(r is not None for r in v), len(v)) if v else None

none = load(sys.argv[1])
runs = {f: load(f) for f in sys.argv[2:]}
cells = sorted({k.rsplit("/", 1)[0] for k in none})
print("cell".ljust(32) + "without".rjust(14) + "".join(f.removesuffix(".json").rjust(26) for f in runs))
met = {f: 0 for f in runs}
for c in cells:
    m0 = med(none, c)
    row = c.ljust(32) + f"{m0[0] if m0[0] < 10**6 else 'never'} ({m0[1]}/{m0[2]})".rjust(14)
    for f, d in runs.items():
        m = med(d, c)
        if m is None:
            row += "-".rjust(26)
            continue
        ok = m[0] <= m0[0] / 5
        met[f] += ok
        s = f"{m[0] if m[0] < 10**6 else 'never'} ({m[1]}/{m[2]}) {m0[0] / m[0]:.1f}x{' met' if ok else ''}"
        row += s.rjust(26)
    print(row)
print("cells met".ljust(46) + "".join(str(met[f]).rjust(26) for f in runs))
