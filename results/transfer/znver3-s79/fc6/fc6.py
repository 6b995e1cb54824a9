"""fc6: tuned kernel (as the tuner builds it) vs the model's compiled kernel, same process, same fresh args."""
import json
import os
import sys

import numpy as np
import tvm

from tensortune.cli.common import open_storage, parse_target_arg
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.models.flow import _run_id, plan_tasks
from tensortune.models.importer import load_model

db, lib_path = sys.argv[1], sys.argv[2]
model = load_model("vgg16", None, seed=0)
target = parse_target_arg("llvm")
fused, tasks, rows = plan_tasks(model, target)
row = [r for r in rows if r.name.startswith("fused_matmul_add") and r.flops > 1e8][0]
st = open_storage(db)
top = st.best(row.task.key, row.task.target_json, k=3, run_id=_run_id(row, "autotvm", 0))
print(row.name, "best", [(t.cost, t.config) for t in top[:1]])
values = top[0].config
spec = row.task.spec()
out = f"/work/runs/s79/fc6_{os.path.basename(db)}.so"
print(tvm_jobs.build(spec, values, out))
timing = {"repeat": 20, "min_repeat_ms": 0, "cold": True}
print("run_local (as tuner, 2 threads):", np.median(call_with_threads(2, tvm_jobs.run_local, out, spec, values, timing)["costs"]) * 1e3, "ms")
shapes = json.load(open(out + ".shapes.json"))
print("tuned arg shapes", shapes)
dev = tvm.cpu()
tuned = tvm.runtime.load_module(out)
model_lib = tvm.runtime.load_module(lib_path)
kern = model_lib.imports[0]  # the VM executable's library of compiled functions
sym = row.name + "_prepacked"  # the build's name of it (its weights prepacked at build time)
rng = np.random.default_rng(0)
# every argument, the output included, fresh random values in the tuned build's shapes
args = [tvm.runtime.tensor(rng.standard_normal(s).astype("float32"), dev) for s in shapes]
def t(f, name):
    ev = f.time_evaluator(name, dev, number=1, repeat=20, min_repeat_ms=0)
    return np.median(ev(*args).results) * 1e3
for rep in range(3):
    a = call_with_threads(2, t, tuned, "main")
    try:
        b = call_with_threads(2, t, kern, sym)
    except Exception as e:
        b = f"error {str(e)[:300]}"
    print(f"round {rep}: tuned-build kernel {a:.2f} ms, model's kernel {b}")
