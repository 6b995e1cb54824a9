"""Every confirmation pass of stop 95's live runs on this VM: stop 95's two (the bench's own, then reconfirm.py's)
and stop 96's five (bench transfer --confirm-passes). Per layer and recipe, the cell (median measurements to 95% of
that pass's optimum, without / with transfer) in each pass, whether the 1/5 goal holds, and the cell against the
median of all seven passes' medians."""
import json, statistics, sys
from tensortune.bench.transfer import _cell_figures, _cell_runs, combine_passes, goal_met, fewer_cell

S95 = "/work/main/results/transfer/znver5-s95"
for name, layers in (("l1", ["L1"]), ("l35", ["L3", "L5"]), ("l46", ["L4", "L6"])):
    d = json.load(open(f"/work/runs/s96/{name}-live/results.json"))
    re = json.load(open(f"{S95}/{name}-reconfirmed/results.json"))
    for L in layers:
        passes = [("s95-1", re["first_confirmed"][L]), ("s95-2", re["confirmed"][L])]
        passes += [(f"s96-{i + 1} {p['started'][-8:-3]}", p["medians"]) for i, p in enumerate(d["confirmed_passes"][L])]
        allc = combine_passes([m for _, m in passes])
        s96c = combine_passes([p["medians"] for p in d["confirmed_passes"][L]])
        print(f"{L}: optimum per pass " + ", ".join(f"{n} {max(m.values()):.1f}" for n, m in passes)
              + f"; median of 7: {max(allc.values()):.1f}; of s96's 5: {max(s96c.values()):.1f}")
        spread = sorted(max(m[c] for _, m in passes) / min(m[c] for _, m in passes) for c in allc
                        if min(m[c] for _, m in passes) > 0)
        print(f"   config max/min over 7 passes: median {statistics.median(spread):.2f}, max {spread[-1]:.2f}")
        for recipe in d["config"]["recipes"]:
            cells, met = [], []
            for n, m in [*passes, ("median of s96's 5", s96c), ("median of all 7", allc)]:
                opt = max(m.values())
                f = {t: _cell_figures(_cell_runs(d, L, recipe, "knobs+corpus", t), m, 0.95 * opt, opt)[0]
                     for t in (False, True)}
                ok = goal_met(f[False], f[True], 300)
                if not n.startswith("median"):
                    met.append(ok)
                cells.append(f"{n}: " + " / ".join(f"{v:.0f}" if v != float('inf') else "never" for v in f.values())
                             + (" met" if ok else ""))
            print(f"   {recipe}: met in {sum(met)} of {len(met)} passes; " + "; ".join(cells))
