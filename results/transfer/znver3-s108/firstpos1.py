"""Stop 108: L6's transfer-run first config (stop 107's file), timed by a fresh ground-truth measurer in batches of
1, 1 and 2; prints each measurement's per-repeat GFLOP/s. Run with and without OPENBLAS_NUM_THREADS=1 and before
and after the runner fix (outputs in firstpos.txt). Usage: python firstpos1.py"""
import json, sys
from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.core.values import MeasureInput
d = json.load(open("../znver3-s107/live/results.json"))
conf = d["confirmed"]["L6"]
c = next(r for r in d["runs"] if r["layer"] == "L6" and r["transfer"])["measured"][0]
task = groundtruth_task("L6")
with groundtruth_measurer(task) as m:
    for batch in ([c], [c], [c, c]):
        res = m.measure([MeasureInput(task, task.space.config(x)) for x in batch])
        for r in res:
            print("gflops per repeat:", " ".join(f"{task.flops/x/1e9:.0f}" for x in r.costs), "confirmed", conf[str(c)], r.extra, flush=True)
