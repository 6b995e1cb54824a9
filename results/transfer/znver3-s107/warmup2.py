"""Stop 107: is L6's low first reading positional? A fresh ground-truth measurer times, in one batch, another
confirmed config first (run without transfer, seed 0's first) and then the transfer runs' first config 3 times;
readings as shares of each config's confirmed median. Then the same with the first config timed alone in its own
batch before a second batch. Usage: python warmup2.py"""
import json

from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.core.values import MeasureInput

d = json.load(open("live/results.json"))
conf = d["confirmed"]["L6"]
c = next(r for r in d["runs"] if r["layer"] == "L6" and r["transfer"])["measured"][0]
o = next(r for r in d["runs"] if r["layer"] == "L6" and not r["transfer"] and r["seed"] == 0)["measured"][0]
task = groundtruth_task("L6")


def share(cfg, res):
    return task.flops / res.cost / 1e9 / conf[str(cfg)] if res.ok else 0.0


with groundtruth_measurer(task) as m:
    batch = [o, c, c, c]
    res = m.measure([MeasureInput(task, task.space.config(x)) for x in batch])
    print("one batch, other config first:", " ".join(f"{x}:{share(x, r):.2f}" for x, r in zip(batch, res)), flush=True)
with groundtruth_measurer(task) as m:
    for batch in ([c], [c, c, c]):
        res = m.measure([MeasureInput(task, task.space.config(x)) for x in batch])
        print(f"batch of {len(batch)}:", " ".join(f"{x}:{share(x, r):.2f}" for x, r in zip(batch, res)), flush=True)
