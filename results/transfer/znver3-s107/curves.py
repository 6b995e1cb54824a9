"""Stop 107: each held-out layer's best share of its optimum after 1, 10, 30 and 100 measurements, median over seeds,
without / with transfer, autotvm, as the report credits runs (share_curve: replayed runs by their curves, live runs
by their configs' confirmed medians). Reads results files only. Usage: python curves.py RESULTS.json [...]"""
import json
import statistics
import sys

from tensortune.bench.transfer import _cell_runs, share_curve

for path in sys.argv[1:]:
    d = json.load(open(path))
    cfg = d["config"]
    print(f"== {path}")
    print("| layer | 1st measurement without / with | after 10 | after 30 | after 100 |")
    print("|---|---|---|---|---|")
    for layer in [*cfg["layers"], *cfg.get("live", [])]:
        opt, conf = d["optimum"][layer], d.get("confirmed", {}).get(layer)
        cells = []
        for at in (1, 10, 30, 100):
            pair = []
            for tr in (False, True):
                runs = _cell_runs(d, layer, "autotvm", cfg.get("features", ["knobs"])[0], tr)
                pair.append(statistics.median(float(share_curve(r, opt, conf)[at - 1]) for r in runs))
            cells.append(f"{pair[0]:.2f} / {pair[1]:.2f}")
        kind = "live" if layer in cfg.get("live", []) else "replay"
        print(f"| {layer} ({kind}) | " + " | ".join(cells) + " |")
