"""Per layer and recipe, from the bench results on the CUDA tables: % of the optimum at 64 and 256
measurements (median of seeds) and measurements / wall seconds to 95% of the optimum per seed
(">N" = not reached within the N measurements of that run).

    PYTHONPATH=src python results/gpu/h200-s88/summary.py results/gpu/h200-s88/bench-256/results.json [...]
"""

import json
import sys
from statistics import median

from tensortune.bench.traces import RunTrace

traces, tables = {}, {}
for path in sys.argv[1:]:
    doc = json.load(open(path))
    tables.update(doc["tables"])
    for t in doc["traces"]:
        r = RunTrace.from_json(t)
        key = (r.layer, r.tuner, r.seed)
        if key not in traces or traces[key].trials < r.trials:
            traces[key] = r  # the longest run of that recipe, layer and seed
print("| layer | recipe | seeds | longest run | % of optimum @64 | @256 | measurements to 95% per seed | median | wall s to 95%, median |")
print("|---|---|---|---|---|---|---|---|---|")
for layer in sorted(tables):
    opt = tables[layer]["optimum_gflops"]
    for tuner in ("random", "autotvm", "chameleon", "arco"):
        runs = sorted((r for (lay, tu, _), r in traces.items() if lay == layer and tu == tuner), key=lambda r: r.seed)
        if not runs:
            continue
        to = [r.trials_to(0.95 * opt) for r in runs]
        wall = [r.wall_to(0.95 * opt) for r in runs]
        reached = [x for x in to if x is not None]
        med = median(to) if len(reached) == len(to) else (f"> {max(r.trials for r in runs)}" if len(reached) * 2 < len(to)
                                                            else median([x if x is not None else 10**9 for x in to]))
        wmed = median([w for w in wall if w is not None]) if len(reached) == len(to) else "-"
        print(f"| {layer} | {tuner} | {len(runs)} | {max(r.trials for r in runs)} | "
              f"{100 * median(r.best(64) for r in runs) / opt:.1f} | {100 * median(r.best(256) for r in runs) / opt:.1f} | "
              f"{', '.join(f'>{r.trials}' if x is None else str(x) for x, r in zip(to, runs))} | {med} | "
              f"{wmed if isinstance(wmed, str) else round(wmed)} |")
