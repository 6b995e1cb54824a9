"""Why does a memory-bound matmul (AlexNet fc1: 1x9216 @ 9216x4096) run at half its tuned speed in the model?
Times one TVM kernel on weights in different memory: TVM's allocation, the same after MADV_HUGEPAGE+MADV_COLLAPSE,
numpy memory (zero copy, numpy madvises huge pages)."""
import ctypes, sys, time
import numpy as np
import tvm
from tvm import te
from tensortune.core.threads import call_with_threads

K, N = 9216, 4096
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25
libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]

def build():
    # weights pre-packed as [N/64, K, 64] (as MetaSchedule's layout rewrite leaves them): each thread streams
    x = te.placeholder((1, K), name="x"); w = te.placeholder((N // 64, K, 64), name="w")
    k = te.reduce_axis((0, K), name="k")
    y = te.compute((1, N), lambda i, j: te.sum(x[i, k] * w[j // 64, k, j % 64], axis=k), name="y")
    f = te.create_prim_func([x, w, y])
    sch = tvm.s_tir.Schedule(f)
    b = sch.get_sblock("y")
    i, j, kk = sch.get_loops(b)
    jo, ji = sch.split(j, [None, 64])
    sch.reorder(jo, i, kk, ji)
    sch.parallel(jo)
    jv, jl = sch.split(ji, [None, 16])
    sch.vectorize(jl)
    return tvm.compile(sch.mod, target=tvm.target.Target({"kind": "llvm", "mcpu": "znver4", "num-cores": 2})).jit()

def huge(t, collapse):
    ptr = t._tvm_handle if hasattr(t, "_tvm_handle") else None
    addr = t.__dlpack__().__class__ and np.from_dlpack(t).ctypes.data
    size = t.numpy().nbytes if False else int(np.prod(t.shape)) * 4
    start = addr & ~(2 * 1024 * 1024 - 1)
    r1 = libc.madvise(ctypes.c_void_p(start), size + (addr - start), MADV_HUGEPAGE)
    r2 = libc.madvise(ctypes.c_void_p(start), size + (addr - start), MADV_COLLAPSE) if collapse else 0
    return r1, r2, ctypes.get_errno()

def anon_huge():
    with open("/proc/self/smaps_rollup") as f:
        return next(l for l in f if l.startswith("AnonHugePages")).split()[1] + " kB"

def main():
    lib = build()
    dev = tvm.cpu()
    rng = np.random.default_rng(0)
    xn = rng.standard_normal((1, K)).astype("float32")
    w_kn = rng.standard_normal((K, N)).astype("float32")
    ref = xn @ w_kn
    packed = np.ascontiguousarray(w_kn.reshape(K, N // 64, 64).transpose(1, 0, 2))
    del w_kn
    # an aligned numpy buffer (numpy madvises huge pages for large arrays) holding the packed weights
    raw = np.empty(packed.size + 16, dtype="float32")
    off = (-raw.ctypes.data % 64) // 4
    wn = raw[off:off + packed.size].reshape(packed.shape)
    wn[...] = packed
    def timeit(w, label, cold):
        x = tvm.runtime.tensor(xn, dev); y = tvm.runtime.empty((1, N), "float32", dev)
        lib["main"](x, w, y); assert np.allclose(y.numpy(), ref, rtol=1e-3, atol=1e-2)
        kw = dict(f_preproc="cache_flush_cpu_non_first_arg") if cold else {}
        ev = lib.time_evaluator("main", dev, number=1, repeat=30, min_repeat_ms=0, **kw)
        res = sorted(ev(x, w, y).results)
        med = res[len(res) // 2]
        print(f"{label:48s} {'cold' if cold else 'warm'}: median {med*1e3:.3f} ms, {K*N*4/med/1e9:.1f} GB/s  ({anon_huge()} huge in process)", flush=True)
    w_tvm = tvm.runtime.tensor(packed, dev)
    for cold in (True, False):
        timeit(w_tvm, "TVM allocation (4K pages)", cold)
    w_np = tvm.runtime.from_dlpack(wn)
    for cold in (True, False):
        timeit(w_np, "numpy memory, zero copy", cold)
    w2 = tvm.runtime.tensor(packed, dev)
    print("madvise", huge(w2, True))
    for cold in (True, False):
        timeit(w2, "TVM allocation + MADV_HUGEPAGE + MADV_COLLAPSE", cold)

if __name__ == "__main__":
    call_with_threads(2, main)
