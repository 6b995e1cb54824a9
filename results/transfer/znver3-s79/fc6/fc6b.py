"""fc6: the stored top configs of both VGG-16 runs re-measured now, interleaved, as the tuner measures."""
import sys
import time

import numpy as np

from tensortune.cli.common import open_storage, parse_target_arg
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.models.flow import _run_id, plan_tasks
from tensortune.models.importer import load_model

model = load_model("vgg16", None, seed=0)
target = parse_target_arg("llvm")
fused, tasks, rows = plan_tasks(model, target)
row = [r for r in rows if r.name.startswith("fused_matmul_add") and r.flops > 1e8][0]
spec = row.task.spec()
cands = []
for db in ["vgg16-200-with-s78corpus-s0", "vgg16-1000-without-s0"]:
    st = open_storage(f"/work/runs/s78/models/{db}.db")
    for i, t in enumerate(st.best(row.task.key, row.task.target_json, k=3, run_id=_run_id(row, "autotvm", 0))):
        out = f"/work/runs/s79/fc6_{db}_{i}.so"
        tvm_jobs.build(spec, t.config, out)
        cands.append((f"{db[6:]}#{i} (stored {t.cost*1e3:.2f})", out, t.config))
timing = {"repeat": 20, "min_repeat_ms": 0, "cold": True}
res = {c[0]: [] for c in cands}
t0 = time.time()
for rnd in range(int(sys.argv[1])):
    order = cands[rnd % len(cands):] + cands[:rnd % len(cands)]
    for name, out, values in order:
        r = call_with_threads(2, tvm_jobs.run_local, out, spec, values, timing)
        res[name].append(np.median(r["costs"]) * 1e3)
    print(f"round {rnd} t={time.time()-t0:.0f}s", " ".join(f"{v[-1]:.2f}" for v in res.values()), flush=True)
for k, v in res.items():
    print(f"{k:45s} median {np.median(v):.2f} min {min(v):.2f} max {max(v):.2f}")
