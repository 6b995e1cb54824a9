"""Stop 107: does the first kernel a fresh ground-truth measurer times read low? For each layer, the runs with
transfer's first config (the same at every seed), measured 4 times in one batch by a fresh measurer, twice (two fresh
measurers); readings as a share of the config's confirmed median in the live file. Usage: python warmup.py L6,L5"""
import json
import sys

from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.core.values import MeasureInput

d = json.load(open("live/results.json"))
for layer in sys.argv[1].split(","):
    conf = d["confirmed"][layer]
    c = next(r for r in d["runs"] if r["layer"] == layer and r["transfer"])["measured"][0]
    task = groundtruth_task(layer)
    for fresh in range(2):
        with groundtruth_measurer(task) as m:
            res = m.measure([MeasureInput(task, task.space.config(c)) for _ in range(4)])
        got = [task.flops / r.cost / 1e9 / conf[str(c)] if r.ok else 0.0 for r in res]
        print(f"{layer} config {c} (confirmed {conf[str(c)]:.1f} GFLOP/s), fresh measurer {fresh + 1}: "
              + " ".join(f"{x:.2f}" for x in got), flush=True)
