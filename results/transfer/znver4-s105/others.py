"""Stop 105 (Zen 4), convs.py for VGG-16's other tuned tasks (dense layers, pools, layout transforms): where the 200
with loses to the 1,000 without outside the convs, task by task. Each conv task's best config of the six runs behind this stop's pooled latency set (200 with
and 1,000 without, seeds 0-2: seed 0 stop 103's, /work/runs/s103/models; seeds 1-2 stop 100's, /work/runs/s100/models),
built and measured as the tuner does
(cold, 2 threads), every task's six picks in turn within a round, ROUNDS rounds, the start rotated each round.
Prints per task and seed the median over rounds and the per-round ratio 200 with / 1,000 without (geometric mean),
and the sum over tasks of calls x median per run. Usage: python convs.py ROUNDS"""
import sys
import time

import numpy as np

import argparse

from tensortune.cli.common import open_storage
from tensortune.cli.model_cmds import _load
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.models.flow import _run_id, plan_tasks

rounds = int(sys.argv[1])
DIRS = {0: "/work/runs/s103/models", 1: "/work/runs/s100/models", 2: "/work/runs/s100/models"}
# the model as `tune` plans it (blocked layout, Winograd F(4,3) where it applies: the defaults)
model, target = _load(argparse.Namespace(model="vgg16", input_shape=None, seed=0, target="llvm", layout="auto",
                                         winograd="auto"))
fused, tasks, rows = plan_tasks(model, target, True, "full")
convs = [r for r in rows if r.task is not None and r.kind != "conv2d"]
runs = [(n, s) for s in (0, 1, 2) for n in ("200-with", "1000-without")]
cands = []  # (task name, calls, run, seed, lib, values)
for r in convs:
    spec = r.task.spec()
    for n, s in runs:
        st = open_storage(f"{DIRS[s]}/vgg16-{n}-s{s}.db", readonly=True)
        top = st.best(r.task.key, r.task.target_json, k=1, run_id=_run_id(r, "autotvm", s))
        if not top:
            print(f"{r.name}: no record in {n}-s{s} (a twin tuned for it)", flush=True)
            continue
        out = f"/work/runs/s105/others/{r.name}_{n}-s{s}.so"
        tvm_jobs.build(spec, top[0].config, out)
        cands.append((r.name, r.weight, n, s, spec, out, top[0].config))
print(f"{len(cands)} kernels built", flush=True)
timing = {"repeat": 10, "min_repeat_ms": 0, "cold": True}
res: dict[tuple, list[float]] = {c[:4]: [] for c in cands}
t0 = time.time()
for rnd in range(rounds):
    order = cands[rnd % len(cands):] + cands[:rnd % len(cands)]
    for name, w, n, s, spec, out, values in order:
        got = call_with_threads(2, tvm_jobs.run_local, out, spec, values, timing)
        res[(name, w, n, s)].append(float(np.median(got["costs"])) * 1e3)
    print(f"round {rnd} t={time.time() - t0:.0f}s", flush=True)
tot = {(n, s): 0.0 for n, s in runs}
for r in convs:
    line = [f"{r.name:36s} x{r.weight}"]
    for s in (0, 1, 2):
        a, b = res.get((r.name, r.weight, "200-with", s)), res.get((r.name, r.weight, "1000-without", s))
        if not a or not b:
            line.append(f"s{s}: -")
            continue
        ratio = float(np.exp(np.mean(np.log(np.array(a) / np.array(b)))))
        line.append(f"s{s}: {np.median(a):6.3f} / {np.median(b):6.3f} ms = {ratio:5.3f}")
        tot[("200-with", s)] += r.weight * float(np.median(a))
        tot[("1000-without", s)] += r.weight * float(np.median(b))
    print("  ".join(line))
for s in (0, 1, 2):
    a, b = tot[("200-with", s)], tot[("1000-without", s)]
    print(f"seed {s}: these tasks, calls x median: 200 with {a:.2f} ms, 1,000 without {b:.2f} ms, ratio {a / b:.3f}")
