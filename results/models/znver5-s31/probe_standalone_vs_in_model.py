"""Why do tuned convs run slower inside the model than when measured? Same process, same pinning.
For each tuned task: standalone cold (as tuned), standalone warm, and in-model (instrumented)."""
import sys, json, numpy as np
import tvm
from tensortune.models.importer import load_model
from tensortune.core.targets import default_cpu_target
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.models.flow import stored_result
from tensortune.models.build import build_model, to_database
from tensortune.core.threads import call_with_threads
from tensortune.templates import get_template
from tensortune.workloads.tir import TirWorkload

db = sys.argv[1]
from tensortune.cli.common import parse_target_arg
from tensortune.models.layout import apply_layout
target = parse_target_arg("llvm")
model = apply_layout(load_model("resnet18"), "auto", target)
res = stored_result(model, target, SQLiteStorage(db, readonly=True))

def standalone(row):
    wl = row.task.workload
    tmpl = get_template(row.template)
    mod = tmpl.instantiate(wl, row.best_values)
    from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock
    mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
    lib = tvm.compile(mod, target=tvm.target.Target(target))
    from tvm.s_tir.meta_schedule.arg_info import ArgInfo
    shapes = [[int(d) for d in a.shape] for a in ArgInfo.from_prim_func(mod["main"])]
    rng = np.random.default_rng(0)
    args = [tvm.runtime.tensor(rng.standard_normal(s).astype("float32"), tvm.cpu()) for s in shapes]
    return lib.mod, args

def timeit(lib, args, cold, n=40):
    dev = tvm.cpu()
    if cold:
        ev = lib.time_evaluator("main", dev, number=1, repeat=n, min_repeat_ms=0, f_preproc="cache_flush_cpu_non_first_arg")
    else:
        ev = lib.time_evaluator("main", dev, number=1, repeat=n, min_repeat_ms=0)
    return float(np.median(ev(*args).results)) * 1e6

def work():
    rows = [r for r in res.rows if r.best_values]
    out = {}
    libs = {r.name: standalone(r) for r in rows}
    built = build_model(model, target, to_database(res.schedules(), target), log_path="/tmp/probe-tvm.log")
    x = model.example_input(0)
    prof_c, collect = built.profiler("p", x)
    prof_c.repeat_ms(0)
    for rnd in range(3):
        for r in rows:
            lib, args = libs[r.name]
            out.setdefault(r.name, {"tuned": r.best_s * 1e6, "cold": [], "warm": []})
            out[r.name]["cold"].append(timeit(lib, args, True))
            out[r.name]["warm"].append(timeit(lib, args, False))
        prof_c.repeat_ms(300)
    kt = {k.symbol: k.median_s * 1e6 for k in collect()}
    print(f"{'task':55s} {'tuned':>7s} {'cold':>7s} {'warm':>7s} {'model':>7s}")
    for name, d in out.items():
        m = kt.get(name, kt.get(name + '_prepacked', float('nan')))
        print(f"{name[:55]:55s} {d['tuned']:7.1f} {np.median(d['cold']):7.1f} {np.median(d['warm']):7.1f} {m:7.1f}")
    for s, t in sorted(kt.items(), key=lambda a: -a[1]):
        if s.removesuffix('_prepacked') not in out: print("  other", s, f"{t:.1f}")

call_with_threads(2, work)
