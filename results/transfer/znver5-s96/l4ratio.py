"""L4 in every confirmation pass on this VM (stop 95's two, stop 96's five, l4abs.py's three, and more.sh's five in
time order): the optimum, and the
first design's two confirmed configs (15748: 16 x 7 x 2 register tile; 2284: 16 x 8 x 2) and the fastest family's
5168 (16 x 1 x 8) as shares of it."""
import json
R = "/work/main/results/transfer"
re = json.load(open(f"{R}/znver5-s95/l46-reconfirmed/results.json"))
s96 = json.load(open(f"{R}/znver5-s96/l46-live/results.json"))
ab = json.load(open(f"{R}/znver5-s96/l4abs.json"))
passes = [("s95-1 (17:42-18:27 bench)", re["first_confirmed"]["L4"]), ("s95-2 (19:2x)", re["confirmed"]["L4"])]
passes += [(f"s96-{i + 1} {p['started'][-8:-3]}", p["medians"]) for i, p in enumerate(s96["confirmed_passes"]["L4"])]
passes += [(f"l4abs-{i + 1} {p['started'][:5]}", p["medians"]) for i, p in enumerate(ab["passes"])]
try:
    more = json.load(open(f"{R}/znver5-s96/l46-live-10/results.json"))["confirmed_passes"]["L4"][5:]
    passes += [(f"s96-{i + 6} {p['started'][-8:-3]}", p["medians"]) for i, p in enumerate(more)]
except FileNotFoundError:
    pass
for name, m in passes:
    opt = max(m.values())
    print(f"{name:28s} optimum {opt:6.1f}  15748 {m['15748'] / opt:.3f}  2284 {m['2284'] / opt:.3f}  "
          f"5168 {m['5168'] / opt:.3f}  {'>= 0.95: the first design reaches' if max(m['15748'], m['2284']) >= 0.95 * opt else ''}")
