"""Measure a live layer's confirmed set again as confirm_live does (interleaved rounds of the whole set in one
measurer), printing each round's readings of chosen configs, to see whether the confirmation reproduces."""
import json, sys
from tensortune.bench.groundtruth import groundtruth_task, groundtruth_measurer
from tensortune.core.values import MeasureInput
d = json.load(open(sys.argv[1])); layer = sys.argv[2]; rounds = int(sys.argv[3]); watch = [int(x) for x in sys.argv[4].split(",")]
want = sorted(int(c) for c in d["confirmed"][layer])
task = groundtruth_task(layer)
with groundtruth_measurer(task) as m:
    for r in range(rounds):
        turn = want[r % len(want):] + want[:r % len(want)]
        res = m.measure([MeasureInput(task, task.space.config(c)) for c in turn])
        got = {c: (task.flops / x.cost / 1e9 if x.ok else 0.0) for c, x in zip(turn, res)}
        print("round", r, {c: round(got[c], 1) for c in watch}, "stored", {c: d["confirmed"][layer][str(c)] for c in watch}, flush=True)
