"""For a live layer's runs with transfer: its first 8 measured configs, each with its confirmed median (share of the
confirmed optimum) and its knobs, so one can see which place of the first design reached."""
import json, sys
from tensortune.bench.groundtruth import groundtruth_task

d = json.load(open(sys.argv[1]))
layer = sys.argv[2]
conf = d["confirmed"][layer]
opt = max(conf.values())
task = groundtruth_task(layer)
for r in d["runs"]:
    if r["layer"] != layer or not r.get("transfer"):
        continue
    print(r["recipe"], "seed", r["seed"], "sources", r["sources"])
    for i, c in enumerate(r["measured"][:8], 1):
        v = conf.get(str(c))
        cfg = task.space.config(c)
        print(f"  {i} cfg {c}: {'%.3f' % (v / opt) if v else 'not confirmed':>13}  {cfg}")
    break
