"""Does folding batch norm into the conv weights (conv + bias + relu instead of conv + subtract, divide,
multiply, add + relu) speed up ResNet-18's tuned convs? Same config for both forms of each conv task
(the best config of stop 42's 1,000-measurement database), cold-cache timing as tuning measures, rounds
interleaved; prints per task the median time of each form and the weighted sum."""
import sys, numpy as np, torch
from tensortune.cli.common import parse_target_arg
from tensortune.models.importer import load_model, _from_torch
from tensortune.models.layout import apply_layout
from tensortune.models.flow import plan_tasks, stored_result
from tensortune.storage import SQLiteStorage
from tensortune.core.values import MeasureInput
from tensortune.measure.tvm_measurer import TvmMeasurer, TimingPolicy

db, rounds = sys.argv[1], int(sys.argv[2])
target = parse_target_arg("llvm")
import dataclasses
from tensortune.models.layout import to_blocked, channel_block
a = load_model(sys.argv[3] if len(sys.argv) > 3 else "resnet18")
blk = channel_block("auto", target)
old = dataclasses.replace(a, mod=to_blocked(a.mod, blk), extra={**a.extra, "layout": f"NCHW{blk}c"})  # before the fold
ra = stored_result(old, target, SQLiteStorage(db)).rows
_, _, rb = plan_tasks(apply_layout(a, "auto", target), target)  # folded (this change)
print([r.name for r in rb if r.template and r.template.startswith("conv2d_nchwc")][:3])
ca = [r for r in ra if r.template and r.template.startswith("conv2d_nchwc")]
cb = [r for r in rb if r.template and r.template.startswith("conv2d_nchwc")]
print(len(ca), len(cb))
pairs = []
import re
def sig(r):  # the conv's space, calls, adds (batch-norm shift or bias, + residual) and relu
    return (r.task.space.fingerprint(), r.weight, len(re.findall(r"_add\d*", r.name)), "relu" in r.name)
left = list(cb)
for r in ca:
    m = [s_ for s_ in left if sig(s_) == sig(r)]
    assert len(m) >= 1, r.name
    left.remove(m[0])
    if r.best_values:
        pairs.append((r, m[0], r.task.space.from_json(r.best_values)))
print(len(pairs), "pairs")
meas = TvmMeasurer(build_workers=2, build_timeout=60, run_timeout=30, timing=TimingPolicy(5, 40, cold=True), run_threads=2)
times = {i: ([], []) for i in range(len(pairs))}
with meas:
    for k in range(rounds):
        ins = []
        for i, (r, s, cfg) in enumerate(pairs):
            ins += [MeasureInput(r.task, cfg), MeasureInput(s.task, s.task.space.from_json(r.best_values))] if k % 2 == 0 else \
                   [MeasureInput(s.task, s.task.space.from_json(r.best_values)), MeasureInput(r.task, cfg)]
        res = meas.measure(ins)
        for i in range(len(pairs)):
            ra_, rb_ = (res[2 * i], res[2 * i + 1]) if k % 2 == 0 else (res[2 * i + 1], res[2 * i])
            if ra_.costs: times[i][0].append(float(np.median(ra_.costs)))
            if rb_.costs: times[i][1].append(float(np.median(rb_.costs)))
            if not ra_.costs or not rb_.costs: print("error", pairs[i][0].name, ra_.message[:200], rb_.message[:200])
sa = sb = 0.0
for i, (r, s, _) in enumerate(pairs):
    ta, tb = np.median(times[i][0]) * 1e6, np.median(times[i][1]) * 1e6
    sa += r.weight * ta; sb += r.weight * tb
    print(f"{r.name[:50]:50s} x{r.weight}  bn-epilogue {ta:8.1f} us  folded {tb:8.1f} us  ratio {tb/ta:.3f}   [{s.name[:40]}]")
print(f"weighted sum: bn-epilogue {sa/1e3:.3f} ms  folded {sb/1e3:.3f} ms  ratio {sb/sa:.3f}")
