import sys, json
from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.bench.transfer import confirm_live
out = {}
for spec in sys.argv[1:]:
    layer, ids = spec.split(":")
    task = groundtruth_task(layer)
    with groundtruth_measurer(task) as m:
        r = confirm_live(task, m, [int(i) for i in ids.split(",")], 5)
    best = max(r.values())
    out[layer] = r
    for k, v in sorted(r.items(), key=lambda t: -t[1]):
        print(layer, k, round(v, 1), round(v / best, 3), flush=True)
json.dump(out, open("/work/runs/s102/probe.json", "w"), indent=1)
