"""Stop 99: is it conv4_1's loop order? Stop 98's 200-with picks for VGG-16's conv4_1 (winograd5), seeds 0-2, as
picked, with the loop order flipped (k_outer <-> p_outer), with auto_unroll_max_step 64, and with both, beside the
1,000-without runs' picks; built and measured as the tuner does (cold, 2 threads), in turn within a round, ROUNDS
rounds, the start rotated. Prints the median over rounds and the per-round ratio to the same seed's 1,000 without.
Usage: python convs3.py ROUNDS"""
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
TASK = "fused_conv2d_winograd5_add3_relu31"
model, target = _load(argparse.Namespace(model="vgg16", input_shape=None, seed=0, target="llvm", layout="auto",
                                         winograd="auto"))
fused, tasks, rows = plan_tasks(model, target, True, "full")
r = next(r for r in rows if r.name == TASK)
spec = r.task.spec()
cands = []
for s in (0, 1, 2):
    def best(n):
        return open_storage(f"/work/runs/s98/models/vgg16-{n}-s{s}.db", readonly=True).best(
            r.task.key, r.task.target_json, k=1, run_id=_run_id(r, "autotvm", s))[0].config
    base = best("200-with")
    flip = {"k_outer": "p_outer", "p_outer": "k_outer"}
    variants = {"1000-without": best("1000-without"), "200-with": base,
                "200-with order flipped": {**base, "order": flip[base["order"]]},
                "200-with unroll 64": {**base, "auto_unroll_max_step": 64},
                "200-with both": {**base, "order": flip[base["order"]], "auto_unroll_max_step": 64}}
    for label, values in variants.items():
        out = f"/work/runs/s99/convs/v_{label.replace(' ', '_')}-s{s}.so"
        tvm_jobs.build(spec, values, out)
        cands.append((label, s, out, values))
timing = {"repeat": 10, "min_repeat_ms": 0, "cold": True}
res = {c[:2]: [] for c in cands}
t0 = time.time()
for rnd in range(rounds):
    for label, s, out, values in cands[rnd % len(cands):] + cands[:rnd % len(cands)]:
        res[(label, s)].append(float(np.median(call_with_threads(2, tvm_jobs.run_local, out, spec, values,
                                                                 timing)["costs"])) * 1e3)
    print(f"round {rnd} t={time.time() - t0:.0f}s", flush=True)
for label, s, out, values in cands:
    a, b = np.array(res[(label, s)]), np.array(res[("1000-without", s)])
    print(f"s{s} {label:24s} {np.median(a):6.3f} ms, / 1,000 without {np.exp(np.mean(np.log(a / b))):5.3f}  {values}")
