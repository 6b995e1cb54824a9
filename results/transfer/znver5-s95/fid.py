import sys, time
from tensortune.bench.groundtruth import groundtruth_task, groundtruth_measurer
from tensortune.core.values import MeasureInput
layer = sys.argv[1]; cfgs = [int(x) for x in sys.argv[2].split(",")]
task = groundtruth_task(layer)
print(task.name, task.flops)
with groundtruth_measurer(task) as m:
    for rnd in range(3):
        res = m.measure([MeasureInput(task, task.space.config(c)) for c in cfgs])
        print("batch", rnd, [(c, round(task.flops / r.cost / 1e9, 1) if r.ok else r.error) for c, r in zip(cfgs, res)])
    for c in cfgs:
        res = m.measure([MeasureInput(task, task.space.config(c))])
        print("alone", c, [round(task.flops / r.cost / 1e9, 1) if r.ok else r for r in res])
for c in cfgs:
    print(c, task.space.config(c), task.space.config(c).to_dict() if hasattr(task.space.config(c), "to_dict") else "")
