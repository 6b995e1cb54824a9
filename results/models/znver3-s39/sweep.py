"""Register-block sweep around each conv task's stored best (blocked template with column tails): every
(f2 vectors, y2 rows, x2 columns) block with 8-14 accumulators, other knobs kept; warm, 2 threads,
interleaved rounds, output checked against the stored best's."""
import sys, time
import numpy as np
import tvm
from tensortune.models.importer import load_model
from tensortune.cli.common import parse_target_arg
from tensortune.models.layout import apply_layout
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.models.flow import plan_tasks, _run_id
from tensortune.templates.tir_schedules import FusedConv2dBlockedTails, postprocess

db, rounds, space = sys.argv[1], int(sys.argv[2]), sys.argv[3]
target = parse_target_arg("llvm")
model = apply_layout(load_model("resnet18"), "auto", target)
st = SQLiteStorage(db, readonly=True)
_, _, rows = plan_tasks(model, target, True, space)
T = FusedConv2dBlockedTails()
dev = tvm.cpu()
tgt = tvm.target.Target(target)
total_best = total_new = 0.0
for row in rows:
    if row.task is None or "conv2d" not in row.name:
        continue
    wl = row.task.workload
    top = st.best(row.task.key, row.task.target_json, k=1, run_id=_run_id(row, "autotvm", 0))
    if not top:
        continue
    best = top[0]
    bv = dict(row.task.space.to_json(best.config)) if not isinstance(best.config, dict) else dict(best.config)
    sp = T.space(wl)
    H, W = int(wl.arg_specs[-1][0][2]), int(wl.arg_specs[-1][0][3])
    f0, f1, f2b, vec = bv["tile_f"]
    chunks = f0 * f1 * f2b
    variants = [("best", bv)]
    for f2 in (1, 2, 4, 8):
        if chunks % f2:
            continue
        tf = [chunks // (f1 * f2), f1, f2, vec] if chunks % (f1 * f2) == 0 else [chunks // f2, 1, f2, vec]
        for y2 in (1, 2, 4, 7):
            if H % y2:
                continue
            y1 = bv["tile_y"][1] if H % (bv["tile_y"][1] * y2) == 0 else 1
            for x2 in range(1, 15):
                acc = f2 * y2 * x2
                if not 8 <= acc <= 14:
                    continue
                tx = [W // x2, 1, x2] if W % x2 == 0 else [-(-W // x2), 1, x2]
                v = {**bv, "tile_f": tf, "tile_y": [H // (y1 * y2), y1, y2], "tile_x": tx}
                if v == bv:
                    continue
                try:
                    sp.from_json(v)
                except ValueError:
                    continue
                variants.append((f"f{f2} y{y2} x{x2}", v))
    fns, ref = [], None
    args_np = [np.random.default_rng(i).standard_normal(s).astype(d) for i, (s, d) in enumerate(wl.arg_specs)]
    for name, v in variants:
        try:
            mod = postprocess(T.instantiate(wl, v)) if False else T.instantiate(wl, v)
            lib = tvm.compile(mod, target=tgt).jit()
        except Exception as e:  # noqa: BLE001
            print("  build failed", name, str(e)[:80]); continue
        a = [tvm.runtime.tensor(x, dev) for x in args_np]
        lib["main"](*a)
        out = a[-1].numpy()
        ref = out if ref is None else ref
        err = float(np.max(np.abs(out - ref)) / (np.max(np.abs(ref)) + 1e-9))
        if err > 1e-3:
            print("  WRONG", name, err); continue
        fns.append((name, lib.time_evaluator("main", dev, number=10, repeat=1), a))
    res = {n: [] for n, *_ in fns}
    for r in range(rounds):
        for name, te_, a in fns:
            res[name].append(te_(*a).mean * 1e6)
    meds = sorted((float(np.median(res[n])), n) for n in res)
    bmed = float(np.median(res["best"]))
    total_best += bmed * row.weight
    total_new += meds[0][0] * row.weight
    print(f"{row.name[:50]:50s} HxW {H}x{W} best {bmed:8.1f} us ({bv['tile_f']} {bv['tile_y']} {bv['tile_x']})  "
          f"top: " + ", ".join(f"{n} {m:.1f}" for m, n in meds[:3]) + f"  gain {bmed / meds[0][0]:.3f}x  [{len(fns)} variants]",
          flush=True)
print(f"sum best {total_best:.1f} us, sum sweep-best {total_new:.1f} us, {total_best / total_new:.3f}x")
