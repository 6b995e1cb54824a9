"""Stop 111: ResNet-18's tuned tasks, 200 measurements with transfer against 1,000 without, seed by seed, from the
tuning reports (models/resnet18-*.json): each task's tuned time (best_s x calls, as measured during its own tuning,
so each figure carries the host's moment) and the measurements it got. Prints the tasks that hold 1% or more of
the 1,000 without's tuned sum (a twin that took its twin's config is counted in the sums, not listed)."""
import json
import sys
from pathlib import Path

here = Path(__file__).resolve().parent / "models"
for s in (0, 1, 2):
    w = json.loads((here / f"resnet18-200-with-s{s}.json").read_text())
    wo = json.loads((here / f"resnet18-1000-without-s{s}.json").read_text())
    tw = {t["name"]: t for t in w["tasks"]}
    two = {t["name"]: t for t in wo["tasks"]}
    sw = sum(t["best_s"] * t["calls"] for t in tw.values() if t.get("best_s"))
    swo = sum(t["best_s"] * t["calls"] for t in two.values() if t.get("best_s"))
    print(f"seed {s}: tuned sum 200 with {sw * 1e3:.2f} ms, 1000 without {swo * 1e3:.2f} ms, ratio {sw / swo:.3f}; "
          f"tuning wall {w['tuning_wall_s']:.0f} s against {wo['tuning_wall_s']:.0f} s")
    rows = []
    for name, b in two.items():
        a = tw.get(name)
        if not a or not a.get("best_s") or not b.get("best_s"):
            continue
        share = b["best_s"] * b["calls"] / swo
        if share >= 0.01 and b["trials"] > 0:  # a twin (0 measurements) runs its twin's config: listed once
            rows.append((a["best_s"] * a["calls"] - b["best_s"] * b["calls"], name, a, b, share))
    for d, name, a, b, share in sorted(rows, reverse=True):
        print(f"  {name[:60]:60s} {share:5.1%} of sum  with {a['best_s'] * 1e3:7.3f} ms ({a['trials']:3d} meas.)  "
              f"without {b['best_s'] * 1e3:7.3f} ms ({b['trials']:3d})  ratio {a['best_s'] / b['best_s']:.3f}  "
              f"diff {d * 1e3:+.3f} ms")
