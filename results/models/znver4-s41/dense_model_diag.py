"""AlexNet's dense layers ran at about twice their tuned time inside the built model (stop 40). Build the
stored run, then time each matmul function four ways in this process: inside the model (instrumented),
alone on copies of its arguments in TVM's allocation (the profile's 'alone now'), alone on the same copies
after MADV_HUGEPAGE + MADV_COLLAPSE, and inside the model again after collapsing every large mapping of the
process (the model's constants too). Usage: python dense_model_diag.py DB [MODEL]"""
import ctypes, sys, time
import numpy as np
import tvm
from tensortune.cli.common import open_storage, parse_target_arg
from tensortune.core.threads import call_with_threads
from tensortune.models.build import build_model, to_database, COLD_RUNS
from tensortune.models.flow import stored_result
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout

libc = ctypes.CDLL("libc.so.6", use_errno=True)
libc.madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
MADV_HUGEPAGE, MADV_COLLAPSE = 14, 25


def anon_huge():
    with open("/proc/self/smaps_rollup") as f:
        return int(next(l for l in f if l.startswith("AnonHugePages")).split()[1]) // 1024


def collapse_all(min_mb=4):
    n = 0
    with open("/proc/self/maps") as f:
        lines = f.readlines()
    for ln in lines:
        parts = ln.split()
        lo, hi = (int(v, 16) for v in parts[0].split("-"))
        if "rw" not in parts[1] or (len(parts) > 5 and parts[5] not in ("[heap]",)) or hi - lo < min_mb << 20:
            continue
        libc.madvise(ctypes.c_void_p(lo), hi - lo, MADV_HUGEPAGE)
        if libc.madvise(ctypes.c_void_p(lo), hi - lo, MADV_COLLAPSE) == 0:
            n += hi - lo
    return n >> 20


def main(db, name):
    target = parse_target_arg("llvm")
    model = apply_layout(load_model(name, None, seed=0), "NCHW", target)
    storage = open_storage(db)
    res = stored_result(model, target, storage)
    for r in res.rows:
        if "matmul" in r.name:
            print(f"tuned {r.name:40s} {r.best_s*1e6:9.1f} us")
    built = build_model(model, target, to_database(res.schedules(), target))
    x = model.example_input(0)
    dev = tvm.cpu()

    def run():
        vm = built._vm()
        inp = tvm.runtime.tensor(x, dev)
        lib = built._kernel_library()
        times, args_of, stack = {}, {}, []

        def instrument(_f, symbol, before, _ret, *args):
            s = str(symbol)
            if before:
                if "matmul" in s and s not in args_of:
                    args_of[s] = [tvm.runtime.tensor(a.numpy(), dev) for a in args]
                stack.append(time.perf_counter())
            else:
                times.setdefault(s, []).append(time.perf_counter() - stack.pop())
            return 0

        def in_model(label):
            times.clear()
            vm.set_instrument(instrument)
            t0 = time.perf_counter()
            for _ in range(20):
                vm["main"](inp)
            total = (time.perf_counter() - t0) / 20
            vm.set_instrument(None)
            vm["main"](inp)
            t1 = time.perf_counter()
            for _ in range(20):
                vm["main"](inp)
            plain = (time.perf_counter() - t1) / 20
            print(f"[{label}] model {plain*1e3:.2f} ms (instrumented {total*1e3:.2f}); huge pages in process {anon_huge()} MB")
            for s in sorted(args_of):
                print(f"   in model  {s:40s} {np.median(times[s][2:])*1e6:9.1f} us")

        def alone(label):
            for s, a in sorted(args_of.items()):
                ev = lib.time_evaluator(s, dev, number=1, repeat=COLD_RUNS * 5, min_repeat_ms=0,
                                        f_preproc="cache_flush_cpu_non_first_arg")
                cold = np.median(ev(*a).results)
                ev = lib.time_evaluator(s, dev, number=1, repeat=20, min_repeat_ms=0)
                warm = np.median(ev(*a).results)
                nbytes = sum(int(np.prod(t.shape)) * 4 for t in a)
                print(f"   alone {label:10s} {s:40s} cold {cold*1e6:9.1f} us ({nbytes/cold/1e9:5.1f} GB/s)  warm {warm*1e6:9.1f} us")

        vm["main"](inp)
        in_model("as built")
        alone("4K pages")
        mb = collapse_all()
        print(f"collapsed {mb} MB of large anonymous mappings into huge pages")
        alone("huge")
        in_model("after collapse")

    call_with_threads(2, run)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "alexnet")
