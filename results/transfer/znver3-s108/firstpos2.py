"""Stop 108: two L6 configs (stop 107's seed-0 runs' first, without and with transfer) alternated three times in
one batch of a fresh measurer: is the first position still low after the runner fix? Usage: python firstpos2.py"""
import json
from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.core.values import MeasureInput
d = json.load(open("../znver3-s107/live/results.json"))
runs = [r for r in d["runs"] if r["layer"] == "L6"]
task = groundtruth_task("L6")
cs = [runs[0]["measured"][0], runs[1]["measured"][0], runs[0]["measured"][0], runs[1]["measured"][0], runs[0]["measured"][0], runs[1]["measured"][0]]
with groundtruth_measurer(task) as m:
    res = m.measure([MeasureInput(task, task.space.config(x)) for x in cs])
    print(" ".join(f"{x}:{task.flops/r.cost/1e9:.0f}" for x, r in zip(cs, res)), flush=True)
