"""Stop 99: VGG-16's conv4_1 (winograd5) and conv5_x (winograd7) as picked by this stop's 200-with runs (round 8;
the model-ranked first design) beside stop 98's (200 with; 1,000 without), seeds 0-2: each run's best config, built
and measured as the tuner does (cold, 2 threads), all in turn within a round, ROUNDS rounds, the start rotated.
Prints per task and run the median over rounds and the per-round ratio to the same seed's 1,000 without (geometric
mean). Usage: python convs2.py ROUNDS"""
import argparse
import sys
import time

import numpy as np

from tensortune.cli.common import open_storage
from tensortune.cli.model_cmds import _load
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.models.flow import _run_id, plan_tasks

rounds = int(sys.argv[1])
DBS = {"1000-without": "/work/runs/s98/models/vgg16-1000-without-s{s}.db",
       "200-with (stop 98)": "/work/runs/s98/models/vgg16-200-with-s{s}.db",
       "200-with round 8": "/work/runs/s99/models/vgg16-200-with-r8-s{s}.db",
       "200-with ranked": "/work/runs/s99/models/vgg16-200-with-ranked-s{s}.db"}
TASKS = ("fused_conv2d_winograd5_add3_relu31", "fused_conv2d_winograd7_add4_relu41")
model, target = _load(argparse.Namespace(model="vgg16", input_shape=None, seed=0, target="llvm", layout="auto",
                                         winograd="auto"))
fused, tasks, rows = plan_tasks(model, target, True, "full")
cands = []
for r in [r for r in rows if r.name in TASKS]:
    spec = r.task.spec()
    for s in (0, 1, 2):
        for label, path in DBS.items():
            top = open_storage(path.format(s=s), readonly=True).best(r.task.key, r.task.target_json, k=1,
                                                                     run_id=_run_id(r, "autotvm", s))
            out = f"/work/runs/s99/convs/{r.name}_{label.replace(' ', '_')}-s{s}.so"
            tvm_jobs.build(spec, top[0].config, out)
            cands.append((r.name, label, s, spec, out, top[0].config))
timing = {"repeat": 10, "min_repeat_ms": 0, "cold": True}
res = {c[:3]: [] for c in cands}
t0 = time.time()
for rnd in range(rounds):
    for name, label, s, spec, out, values in cands[rnd % len(cands):] + cands[:rnd % len(cands)]:
        res[(name, label, s)].append(float(np.median(call_with_threads(2, tvm_jobs.run_local, out, spec, values,
                                                                       timing)["costs"])) * 1e3)
    print(f"round {rnd} t={time.time() - t0:.0f}s", flush=True)
for name, label, s, *_ in cands:
    a, b = np.array(res[(name, label, s)]), np.array(res[(name, "1000-without", s)])
    print(f"{name:36s} s{s} {label:20s} {np.median(a):6.3f} ms, / 1,000 without {np.exp(np.mean(np.log(a / b))):5.3f}"
          f"  {next(c[5] for c in cands if c[:3] == (name, label, s))}")
