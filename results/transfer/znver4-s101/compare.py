"""Stop 101: stop 100's live runs (L3-L6, Zen 4) credited against stop 100's confirmation (each run's 8 best
configs) and against this stop's (the 8 best and each run's incumbents), per seed and pass; and where each
'with' run's first design (its first 8 configs) stands in the new confirmation.
Usage: python compare.py OLD_results.json NEW_results.json (the same file twice: one file's figures and chains)"""
import json
import statistics
import sys

from tensortune.bench.transfer import goal_met, incumbents, live_reach

old, new = (json.load(open(p)) for p in sys.argv[1:3])
REACH, TRIALS = 0.95, 300


def cell(doc, layer, conf):
    opt = max(conf.values())
    per = {}
    for t in (False, True):
        runs = sorted((r for r in doc["runs"] if r["layer"] == layer and r["transfer"] == t), key=lambda r: r["seed"])
        hits = [live_reach(r, conf, REACH * opt)[0] for r in runs]
        per[t] = hits, statistics.median([h if h is not None else float("inf") for h in hits])
    return opt, per


def fmt(v):
    return "-" if v is None else ("never" if v == float("inf") else f"{v:.0f}")


for layer in [x for x in new["confirmed"] if x in old["confirmed"]]:
    print(f"== {layer}")
    for name, doc in (("stop 100 (top 8)", old), ("stop 101 (top 8 + incumbents)", new)):
        opt, per = cell(doc, layer, doc["confirmed"][layer])
        (hw, mw), (hx, mx) = per[False], per[True]
        print(f"  {name}: optimum {opt:.1f}; without {', '.join(map(fmt, hw))} -> median {fmt(mw)}; "
              f"with {', '.join(map(fmt, hx))} -> median {fmt(mx)}; met: {goal_met(mw, mx, TRIALS)}")
        for i, p in enumerate(doc["confirmed_passes"][layer], 1):
            o, pp = cell(doc, layer, p["medians"])
            print(f"    pass {i} ({p.get('started', '?')}): optimum {o:.1f}; {fmt(pp[False][1])} / {fmt(pp[True][1])}"
                  f"{' (met)' if goal_met(pp[False][1], pp[True][1], TRIALS) else ''}")
    conf = new["confirmed"][layer]
    opt = max(conf.values())
    for r in sorted((r for r in new["runs"] if r["layer"] == layer), key=lambda r: (r["transfer"], r["seed"])):
        inc = incumbents(r)
        pos = {c: i for i, c in reversed(list(enumerate(r["measured"], 1)))}
        chain = " ".join(f"{c}@{pos[c]}:{conf[str(c)] / opt:.2f}" for c in inc)
        print(f"  {'with' if r['transfer'] else 'without'} seed {r['seed']} incumbents (config@measurement:"
              f" confirmed share): {chain}")
