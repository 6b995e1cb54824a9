"""VGG-16's dense tasks: each stop-97 run's top configs, built and measured as the tuner does (cold), interleaved."""
import sys
import time

import numpy as np

from tensortune.cli.common import open_storage, parse_target_arg
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.models.flow import _run_id, plan_tasks
from tensortune.models.importer import load_model

which, rounds, k = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
model = load_model("vgg16", None, seed=0)
target = parse_target_arg("llvm")
fused, tasks, rows = plan_tasks(model, target)
row = [r for r in rows if r.name == which][0]
spec = row.task.spec()
cands = []
for s in (0, 1, 2):
    for n in ("200-with", "1000-without"):
        db = f"vgg16-{n}-s{s}"
        st = open_storage(f"/work/runs/s97/models/{db}.db")
        for i, t in enumerate(st.best(row.task.key, row.task.target_json, k=k, run_id=_run_id(row, "autotvm", s))):
            out = f"/work/runs/s98/fc_{which}_{db}_{i}.so"
            tvm_jobs.build(spec, t.config, out)
            cands.append((f"{db}#{i} (stored {t.cost*1e3:.2f}) {t.config}", out, t.config))
timing = {"repeat": 10, "min_repeat_ms": 0, "cold": True}
res = {c[0]: [] for c in cands}
t0 = time.time()
for rnd in range(rounds):
    order = cands[rnd % len(cands):] + cands[:rnd % len(cands)]
    for name, out, values in order:
        r = call_with_threads(2, tvm_jobs.run_local, out, spec, values, timing)
        res[name].append(np.median(r["costs"]) * 1e3)
    print(f"round {rnd} t={time.time()-t0:.0f}s", " ".join(f"{v[-1]:.2f}" for v in res.values()), flush=True)
for kk, v in res.items():
    print(f"median {np.median(v):6.2f} min {min(v):6.2f} max {max(v):6.2f}  {kk}")
