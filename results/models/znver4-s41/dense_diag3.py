"""Which step makes the fc1 kernel slower in the process: importing torch, building the model, running it?"""
import json, os, sys, tempfile, threading
import numpy as np
import tvm
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.measure.tvm_measurer import TimingPolicy

TIMING = TimingPolicy(repeat=5, cold=True).as_dict()
db = sys.argv[1]
specs = json.load(open(os.path.join(os.path.dirname(db), "specs.json")))
spec, values, name = next(s for s in specs if s[2] == "fused_matmul_add4_relu41")
path = os.path.join(tempfile.mkdtemp(), "fc1.so")
assert "path" in tvm_jobs.build(spec, values, path)


def probe(label):
    out = call_with_threads(2, tvm_jobs.run_local, path, spec, values, TIMING)
    with open("/proc/self/status") as f:
        thr = next(l for l in f if l.startswith("Threads")).split()[1]
    print(f"{label:36s} median {np.median(out['costs'])*1e6:8.1f} us   threads in process {thr}", flush=True)


probe("fresh process")
probe("fresh process, again")
import torch  # noqa
probe("after import torch")
from tensortune.cli.common import open_storage, parse_target_arg
from tensortune.models.build import build_model, to_database
from tensortune.models.flow import stored_result
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
target = parse_target_arg("llvm")
model = apply_layout(load_model("alexnet", None, seed=0), "NCHW", target)
probe("after load_model")
res = stored_result(model, target, open_storage(db))
probe("after stored_result")
built = build_model(model, target, to_database(res.schedules(), target))
probe("after build_model")
x = model.example_input(0)
y = built.run(x)
probe("after one model run")
for _ in range(10):
    built.run(x)
probe("after 10 more runs")
del built
import gc; gc.collect()
probe("after freeing the model")
