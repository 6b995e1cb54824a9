"""Prototype: register tiles whose column count does not divide the output width (a tail), on AVX2.
Schedules one ResNet-18 blocked conv task with the stored best's knobs except the register block, warm
time_evaluator timing (same protocol for every variant, interleaved rounds), output checked against the
stored best's."""
import sys, time
import numpy as np
import tvm
from tvm import s_tir
from tensortune.models.importer import load_model
from tensortune.cli.common import parse_target_arg
from tensortune.models.layout import apply_layout
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.models.flow import plan_tasks, _run_id
from tensortune.templates.tir_schedules import FusedConv2dBlocked, postprocess, _topological
from tensortune.templates.cpu_conv2d import finish_conv
from tensortune.workloads.tir import block_kinds

db, pat, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3])
target = parse_target_arg("llvm")
model = apply_layout(load_model("resnet18"), "auto", target)
st = SQLiteStorage(db, readonly=True)
_, _, rows = plan_tasks(model, target, True, "full")
row = [r for r in rows if r.task is not None and pat in r.name][0]
wl = row.task.workload
best = st.best(row.task.key, row.task.target_json, k=1, run_id=_run_id(row, "autotvm", 0))[0]
bv = dict(row.task.space.to_json(best.config)) if not isinstance(best.config, dict) else dict(best.config)
print(row.name, "stored best", round(best.cost * 1e6, 1), bv, flush=True)
T = FusedConv2dBlocked()


def sched(v, f_reg, y_reg, x_reg, rc_in=None, nopred=False):
    """The blocked template's loop nest with register block f_reg vectors x y_reg rows x x_reg columns;
    x_reg need not divide the width (imperfect split: a predicated tail)."""
    sch = s_tir.Schedule(wl.mod)
    conv = sch.get_sblock(T.conv_block)
    names = list(block_kinds(wl.mod["main"]))
    outputs = {sch.get(b).name_hint for b in sch.get_output_blocks(sch.get_sblock("root"))}
    wb = sch.cache_write(conv, 0, "local")
    sch.compute_inline(wb)
    for name in _topological(sch, names):
        if name not in (T.pad_block, T.conv_block) and name not in outputs:
            sch.compute_inline(sch.get_sblock(name))
    n, oc, y, x, ob, rc, ry, rx = sch.get_loops(conv)
    chunks = int(sch.get(oc).extent)
    f0 = chunks // f_reg
    ko0, ko2 = sch.split(oc, [f0, f_reg])
    H = int(sch.get(y).extent)
    y0, y2 = sch.split(y, [None, y_reg])
    x1, x2 = sch.split(x, [None, x_reg], disable_predication=nopred)
    rc0, rc1 = sch.split(rc, [None, rc_in or v["tile_rc"][1]])
    sch.reorder(n, ko0, y0, x1, rc0, ry, rx, rc1, ko2, y2, x2, ob)
    outer = sch.fuse(n, ko0, y0)
    sch.parallel(outer)
    sch.vectorize(ob)
    sch.reverse_compute_at(sch.get_sblock(next(iter(outputs))), x1)
    init = sch.decompose_reduction(conv, rc0)
    sch.vectorize(sch.get_loops(init)[-1])
    sch.annotate(outer, "pragma_auto_unroll_max_step", 512)
    sch.annotate(outer, "pragma_unroll_explicit", 1)
    if T.pad_block in names:
        loops = sch.get_loops(sch.get_sblock(T.pad_block))
        sch.parallel(sch.fuse(loops[0], loops[1]))
    return postprocess(sch).mod


def build(mod, partition):
    cfg = {"s_tir.LoopPartition": {"partition_const_loop": True}} if partition else {}
    with tvm.transform.PassContext(opt_level=3, config=cfg):
        return tvm.compile(mod, target=tvm.target.Target(target))


args_np = []
for shape, dtype in wl.arg_specs:
    args_np.append(np.random.default_rng(len(args_np)).standard_normal(shape).astype(dtype))
dev = tvm.cpu()
variants = [("stored best", T.instantiate(wl, bv), False)]
print("stored register block: f", bv["tile_f"], "y", bv["tile_y"], "x", bv["tile_x"], "rc", bv["tile_rc"], flush=True)
W_OUT = int(wl.arg_specs[-1][0][3])
for f_reg, y_reg, x_reg in [(4, 1, 3), (2, 1, 3), (2, 1, 5), (2, 1, 6), (4, 1, 2), (2, 1, 4), (1, 1, 8), (2, 1, 7), (1, 1, 7), (2, 2, 3)]:
    for part in ((True, False), (False, True)):
        if W_OUT % x_reg == 0 and part[1] or x_reg >= W_OUT:
            continue
        try:
            variants.append((f"f{f_reg} y{y_reg} x{x_reg}" + (" part" if part[0] else "") + (" nopred" if part[1] else ""),
                             sched(bv, f_reg, y_reg, x_reg, nopred=part[1]), part[0]))
        except Exception as e:
            print("skip", f_reg, y_reg, x_reg, type(e).__name__, str(e).splitlines()[0][:150])
fns, ref = [], None
for name, mod, part in variants:
    lib = build(mod, part).jit()
    a = [tvm.runtime.tensor(x, dev) for x in args_np]
    lib["main"](*a)
    out = a[-1].numpy()
    if ref is None:
        ref = out
    err = float(np.max(np.abs(out - ref)))
    fns.append((name, lib.time_evaluator("main", dev, number=20, repeat=1), a, err))
res = {n: [] for n, *_ in fns}
for r in range(rounds):
    for name, te_, a, err in fns:
        res[name].append(te_(*a).mean * 1e6)
flops = row.task.workload.flops if hasattr(row.task.workload, "flops") else None
for name, te_, a, err in fns:
    med = np.median(res[name])
    print(f"{name:22s} {med:8.1f} us  err {err:.1e}" + (f"  {flops / med / 1e3:6.1f} GFLOP/s" if flops else ""))
