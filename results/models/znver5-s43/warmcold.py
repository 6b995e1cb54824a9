import sys
import numpy as np
exec(open("order.py").read().split("cands = [")[0])
cands = [("stored", bv)]
for cold in (True, False, True, False):
    m = TvmMeasurer(timing=TimingPolicy(5, 40, cold=cold), run_threads=2)
    with m:
        res = m.measure([MeasureInput(Shim(row.task, v), best.config) for _, v in cands] * 3)
    print("cold" if cold else "warm", [round(np.median(r.costs) * 1e6, 1) for r in res], flush=True)
