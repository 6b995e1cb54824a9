"""The blocked template itself with tail register tiles (tile_x not dividing the width), warm, 2 threads, checked
against the stored best's output."""
import sys
exec(open("tail.py").read().split("def sched(")[0])
exec("def build(" + open("tail.py").read().split("def build(")[1].split("args_np = []")[0])
args_np = [np.random.default_rng(i).standard_normal(s).astype(d) for i, (s, d) in enumerate(wl.arg_specs)]
dev = tvm.cpu()
sp = row.task.space
W = int(wl.arg_specs[-1][0][3])
chunks = bv["tile_f"][0] * bv["tile_f"][1] * bv["tile_f"][2]
variants = [("stored best", bv)]
for f2, x2 in [(2, 5), (4, 3), (2, 3), (2, 6), (1, 5), (2, 4)]:
    if chunks % f2:
        continue
    v = {**bv, "tile_f": [chunks // f2, 1, f2, bv["tile_f"][3]], "tile_x": [-(-W // x2), 1, x2], "tile_y": [bv["tile_y"][0] * bv["tile_y"][1] * bv["tile_y"][2], 1, 1], "tile_ry": [bv["tile_ry"][0] * bv["tile_ry"][1], 1], "tile_rx": [bv["tile_rx"][0] * bv["tile_rx"][1], 1], "auto_unroll_max_step": 512, "unroll_explicit": 1}
    try:
        sp.from_json(v)
        ok = "in space"
    except ValueError as e:
        ok = f"NOT in space ({e})"
    variants.append((f"f{f2} x{x2} ({ok})", v))
fns, ref = [], None
for name, v in variants:
    lib = build(T.instantiate(wl, v), False).jit()
    a = [tvm.runtime.tensor(x, dev) for x in args_np]
    lib["main"](*a)
    out = a[-1].numpy()
    ref = out if ref is None else ref
    fns.append((name, lib.time_evaluator("main", dev, number=20, repeat=1), a, float(np.max(np.abs(out - ref)))))
res = {n: [] for n, *_ in fns}
for r in range(rounds):
    for name, te_, a, err in fns:
        res[name].append(te_(*a).mean * 1e6)
for name, te_, a, err in fns:
    med = np.median(res[name])
    print(f"{name:40s} {med:8.1f} us  err {err:.1e}  {wl.flops / med / 1e3:6.1f} GFLOP/s")
