import json, statistics as st, sys
ship = json.load(open("../znver5-s93/fb-on.json"))
modes = {m: json.load(open(f"{m}.json")) for m in ("next", "lanes")}
cells = sorted({k.rsplit("/", 1)[0] for m in modes.values() for k in m})
def med(xs):
    xs = [999 if x is None else x for x in xs]
    return st.median(xs) if xs else None
for c in cells:
    line = f"{c:30s}"
    seeds = sorted({int(k.rsplit('/',1)[1]) for m in modes.values() for k in m if k.startswith(c + '/')})
    for name, d in [("before (stop 93 fb-on.json)", ship), *modes.items()]:
        r = [d[f"{c}/{s}"]["reach"] for s in seeds if f"{c}/{s}" in d]
        pos = {tuple(f["turned_at"] for f in d[f"{c}/{s}"].get("first", [])) for s in seeds if f"{c}/{s}" in d}
        line += f" | {name} {med(r)} {r} at={pos if 'before' not in name else ''}"
    print(line)
