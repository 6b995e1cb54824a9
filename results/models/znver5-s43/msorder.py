import sys
import numpy as np
exec(open("order.py").read().split("cands = [")[0])
ms = {**bv, "tile_order": "srs", "tile_f": [8, 2, 2, 16], "tile_y": [1, 7, 1], "tile_x": [1, 1, 7], "tile_rc": [16, 32],
      "tile_ry": [3, 1], "tile_rx": [1, 3], "auto_unroll_max_step": 0, "unroll_explicit": 1}
ms16 = {**ms, "auto_unroll_max_step": 32}
ssr = {**ms, "tile_order": "ssr"}
cands = [("stored", bv), ("ms-like srs", ms), ("ms-like srs unroll32", ms16), ("ms-like tiles ssr", ssr)]
for cold in (True, False, True, False):
    m = TvmMeasurer(timing=TimingPolicy(5, 40, cold=cold), run_threads=2)
    with m:
        res = m.measure([MeasureInput(Shim(row.task, v), best.config) for _, v in cands] * 2)
    print("cold" if cold else "warm", [(n, round(np.median(r.costs) * 1e6, 1) if r.ok else r.message[:200]) for (n, _), r in zip(cands * 2, res)], flush=True)
