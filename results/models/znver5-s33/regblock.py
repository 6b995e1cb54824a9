"""Measure register-block shapes of ResNet-18's conv tasks (cold, the tuning measurer) against the stored best."""
import itertools, sys
import numpy as np
from tensortune.models.importer import load_model
from tensortune.cli.common import parse_target_arg
from tensortune.models.layout import apply_layout
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.models.flow import plan_tasks, _run_id
from tensortune.measure.tvm_measurer import TvmMeasurer, TimingPolicy
from tensortune.core.values import MeasureInput

db, pat, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
target = parse_target_arg("llvm")
model = apply_layout(load_model("resnet18"), "auto", target)
st = SQLiteStorage(db, readonly=True)
_, _, rows = plan_tasks(model, target, True, "full")
row = [r for r in rows if r.task is not None and pat in r.name][0]
sp = row.task.space
best = st.best(row.task.key, row.task.target_json, k=1, run_id=_run_id(row, "autotvm", 0))[0]
bv = dict(best.config)
print(row.name, "stored best", round(best.cost * 1e6, 1), bv)
knob = {k.name: k for k in sp.knobs}
def opts(name): return [tuple(o) if isinstance(o, (list, tuple)) else o for o in knob[name].options]
cands = [("stored", bv)]
F, Y, X = opts("tile_f"), opts("tile_y"), opts("tile_x")
oc_chunks = bv["tile_f"][0] * bv["tile_f"][1] * bv["tile_f"][2]
for f2, y2, x2 in itertools.product((1, 2, 4), (1, 2, 4, 7), (1, 2, 4, 6, 7, 8, 14)):
    acc = f2 * y2 * x2
    if not 12 <= acc <= 28:
        continue
    f = [t for t in F if t[2] == f2 and t[1] == 1 and t[3] == bv["tile_f"][3]]
    y = [t for t in Y if t[2] == y2 and t[1] == 1]
    x = [t for t in X if t[2] == x2 and t[1] == 1]
    if not (f and y and x):
        continue
    for rc in (bv["tile_rc"],):
        v = {**bv, "tile_f": list(f[0]), "tile_y": list(y[0]), "tile_x": list(x[0]), "tile_rc": list(rc),
             "tile_ry": [1, bv["tile_ry"][0] * bv["tile_ry"][1]], "tile_rx": [bv["tile_rx"][0] * bv["tile_rx"][1], 1],
             "auto_unroll_max_step": 0, "unroll_explicit": 1}
        cands.append((f"f{f2} y{y2} x{x2}", v))
cfgs = []
for name, v in cands:
    try:
        c = sp.from_json(v)
        if sp.is_valid(c):
            cfgs.append((name, c))
    except Exception as e:
        print("skip", name, e)
m = TvmMeasurer(timing=TimingPolicy(5, 40, cold=True), run_threads=2)
got = {}
with m:
    for rnd in range(rounds):
        res = m.measure([MeasureInput(row.task, c) for _, c in cfgs])
        for (name, c), mr in zip(cfgs, res):
            got.setdefault(name, []).append(np.median(mr.costs) * 1e6 if mr.ok else float("nan"))
for name, c in sorted(cfgs, key=lambda t: np.median(got[t[0]])):
    print(f"{name:14s} {np.median(got[name]):8.1f} us  {' '.join(f'{x:7.1f}' for x in got[name])}  {sp.to_json(c)}")
