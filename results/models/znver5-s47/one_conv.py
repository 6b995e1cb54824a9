# stop 47 prototype: one blocked 3x3 conv as Winograd F(m,3) with a hand schedule, checked against TOPI conv2d_NCHWc, timed cold and warm.
# Usage: TVM_NUM_THREADS=2 PYTHONPATH=src python one_conv.py C K H m   (e.g. 64 64 56 4)
import sys, numpy as np, tvm
from tvm import te, s_tir, topi
sys.path.insert(0, "/work/main/src")
from tensortune.models import winograd as W

C, K, H, m = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
b = 16
tgt = tvm.target.Target({"kind": "llvm", "mcpu": "znver5", "num-cores": 2})
data = te.placeholder((1, C // b, H, H, b), name="data")
kern = te.placeholder((K // b, C // b, 3, 3, b, b), name="kernel")
U = W.weight_transform(kern, m)
ushape = [int(d) for d in U.shape]
up = te.placeholder(ushape, name="U")
out = W.winograd_conv(data, up, m, (1, 1))
relu = te.compute(out.shape, lambda *i: te.max(out(*i), 0.0), name="relu")
f = te.create_prim_func([data, up, relu])
with tgt:
    ref = topi.nn.conv2d_NCHWc(data, kern, (1, 1), (1, 1), (1, 1), f"NCHW{b}c", f"NCHW{b}c", "float32")
fref = tvm.compile(te.create_prim_func([data, kern, ref]), target=tgt)
fu = tvm.compile(te.create_prim_func([kern, U]), target=tgt)
rng = np.random.default_rng(0)
d_np = rng.standard_normal((1, C // b, H, H, b), dtype=np.float32)
k_np = rng.standard_normal((K // b, C // b, 3, 3, b, b), dtype=np.float32) * 0.1
dev = tvm.cpu()
dn, kn = tvm.runtime.tensor(d_np), tvm.runtime.tensor(k_np)
un = tvm.runtime.tensor(np.zeros(ushape, np.float32)); fu(kn, un)
rn = tvm.runtime.tensor(np.zeros([int(x) for x in ref.shape], np.float32)); fref(dn, kn, rn)

def sched(pr, kr, stage=None):
    sch = s_tir.Schedule(f)
    sch.compute_inline(sch.get_sblock("data_pad"))
    dp = sch.get_sblock("data_pack")
    e, nu, p, c = sch.get_loops(dp)
    co, ci = sch.split(c, [None, b])
    sch.reorder(p, co, e, nu, ci)
    pco = sch.fuse(p, co)
    sch.parallel(pco)
    sch.unroll(e); sch.unroll(nu); sch.vectorize(ci)
    row = sch.get_sblock("data_pack_row")
    sch.compute_at(row, pco)
    sch.set_scope(row, 0, "local")
    rl = sch.get_loops(row)
    for l in rl[-3:-1]: sch.unroll(l)
    sch.vectorize(rl[-1])
    bg = sch.get_sblock("bgemm")
    wb = sch.cache_write(bg, 0, "local")
    e, nu, ko, p, ki, rc = sch.get_loops(bg)
    ko0, ko1 = sch.split(ko, [None, kr]); p0, p1 = sch.split(p, [None, pr])
    sch.reorder(e, nu, ko0, p0, rc, p1, ko1, ki)
    outer = sch.fuse(e, nu, ko0, p0); sch.parallel(outer)
    sch.reverse_compute_at(wb, outer); sch.vectorize(ki)
    init = sch.decompose_reduction(bg, rc); sch.vectorize(sch.get_loops(init)[-1])
    sch.annotate(outer, "pragma_auto_unroll_max_step", 512); sch.annotate(outer, "pragma_unroll_explicit", 1)
    sch.vectorize(sch.get_loops(wb)[-1])
    inv = sch.get_sblock("inverse")
    sch.reverse_compute_inline(sch.get_sblock("relu"))
    n, ko, y, z, ki = sch.get_loops(inv)
    y0, y1 = sch.split(y, [None, m]); z0, z1 = sch.split(z, [None, m])
    sch.reorder(n, ko, y0, z0, y1, z1, ki)
    sch.parallel(sch.fuse(n, ko, y0))
    sch.unroll(y1); sch.unroll(z1); sch.vectorize(ki)
    ir = sch.get_sblock("inverse_row")
    sch.compute_at(ir, z0)
    sch.set_scope(ir, 0, "local")
    il = sch.get_loops(ir)
    for l in il[-4:-1]: sch.unroll(l)
    sch.vectorize(il[-1])
    return sch

oshape = [int(x) for x in ref.shape]
flops = 2 * C * K * 9 * H * H
for pr, kr in [(6, 4), (4, 4), (8, 2), (14, 2)]:
    try:
        sch = sched(pr, kr)
        lib = tvm.compile(sch.mod, target=tgt)
    except Exception:
        import traceback; traceback.print_exc(); break
    o = tvm.runtime.tensor(np.zeros(oshape, np.float32))
    lib(dn, un, o)
    err = np.abs(o.numpy() - np.maximum(rn.numpy(), 0)).max() / np.abs(rn.numpy()).max()
    t = lib.mod.time_evaluator("main", dev, number=1, repeat=200, min_repeat_ms=0, f_preproc="cache_flush_cpu_non_first_arg")(dn, un, o)
    med = np.median(t.results) * 1e6
    tw = lib.mod.time_evaluator("main", dev, number=20, repeat=5, min_repeat_ms=50)(dn, un, o)
    print(f"C={C} K={K} H={H} m={m} pr={pr} kr={kr}: cold {med:.1f} us warm {np.median(tw.results)*1e6:.1f}  {flops/med/1e3:.0f} eff GFLOP/s  rel err {err:.1e}", flush=True)
if len(sys.argv) > 5:
    open("/tmp/wg/sched.py.txt", "w").write(sched(6, 4).mod.script())
