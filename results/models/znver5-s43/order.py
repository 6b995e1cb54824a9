"""Layer-4 conv of ResNet-18: the stored best (spatial tiles outside the reduction) against
the same register block with a spatial level between two reduction levels (tile_order=srs)."""
import sys, itertools
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
print(row.name, row.task.key, "stored best", round(best.cost * 1e6, 1), bv, flush=True)

class Shim:
    def __init__(self, task, values):
        self._t, self._v = task, values
        self.space = self
    def spec(self): return self._t.spec()
    def values(self, cfg): return self._v
    def __getattr__(self, k): return getattr(self._t, k)

cands = [("stored", bv)]
f0, f1, f2, fv = bv["tile_f"]
K = f0 * f1 * f2
y, x = bv["tile_y"], bv["tile_x"]
H = y[0] * y[1] * y[2]
W = x[0] * x[1] * x[2]
C = bv["tile_rc"][0] * bv["tile_rc"][1]
extra = [tuple(map(int, a.split(","))) for a in sys.argv[4:]]
# srs: reduction outer (rc0 x ry0 x rx0) outside a middle spatial tile (f1 x y1 x x1), register block kept
for par in (2, 4, 8):           # parallel output-channel chunks
    if K % par: continue
    for mid_f in (1, 2, 4):
        if (K // par) % (mid_f * f2): continue
        for rcin in (16, 32, 64):
            for ry in ([3, 1], [1, 3]):
                for ymid in (H // y[2],):
                    v = {**bv, "tile_order": "srs",
                         "tile_f": [par, mid_f, K // par // mid_f, fv],
                         "tile_y": [H // (ymid * y[2]), ymid, y[2]], "tile_x": [1, 1, W] if x[2] == W else x,
                         "tile_rc": [C // rcin, rcin], "tile_ry": ry, "tile_rx": [1, 3] if ry == [3, 1] else [3, 1]}
                    cands.append((f"srs p{par} m{mid_f} r{K//par//mid_f} rc{rcin} ry{ry[0]}", v))
m = TvmMeasurer(timing=TimingPolicy(5, 40, cold=True), run_threads=2)
got = {}
with m:
    for rnd in range(rounds):
        res = m.measure([MeasureInput(Shim(row.task, v), best.config) for _, v in cands])
        for (name, v), mr in zip(cands, res):
            got.setdefault(name, []).append(np.median(mr.costs) * 1e6 if mr.ok else float("nan"))
            if not mr.ok and rnd == 0: print("FAIL", name, mr.error_kind, str(mr.message)[:300])
for name, v in sorted(cands, key=lambda t: np.nanmedian(got[t[0]]) if not np.all(np.isnan(got[t[0]])) else 1e9):
    print(f"{name:34s} {np.median(got[name]):8.1f} us  {' '.join(f'{x:7.1f}' for x in got[name])}  {v}")
