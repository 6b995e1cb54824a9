"""Is the dense layers' in-model slowness the process or the function? For each AlexNet matmul task: its best
config compiled as the tuner compiles it, run as the tuner runs it (tvm_jobs.run_local) in this process; the
model's compiled function alone on copies of its model arguments; and the tuner-compiled function on those same
model arguments. Usage: python dense_diag2.py DB [fresh]   (fresh: only run_local, without importing torch)"""
import json, os, sys, tempfile
import numpy as np
import tvm
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.measure.tvm_measurer import TimingPolicy

TIMING = TimingPolicy(repeat=5, cold=True).as_dict()
db = sys.argv[1]
tmp = tempfile.mkdtemp()


def tuner_way(spec, values, label):
    path = os.path.join(tmp, f"{abs(hash(json.dumps(values, sort_keys=True, default=str)))}.so")
    if not os.path.exists(path):
        b = tvm_jobs.build(spec, values, path)
        assert "path" in b, b
    out = call_with_threads(2, tvm_jobs.run_local, path, spec, values, TIMING)
    print(f"   run_local {label:12s} median {np.median(out['costs'])*1e6:9.1f} us  (min {min(out['costs'])*1e6:.1f})", flush=True)
    return path


if len(sys.argv) > 2 and sys.argv[2] == "fresh":
    for spec, values, name in json.load(open(os.path.join(os.path.dirname(db), "specs.json"))):
        print(name)
        tuner_way(spec, values, "fresh proc")
    sys.exit(0)

from tensortune.cli.common import open_storage, parse_target_arg
from tensortune.models.build import build_model, to_database, COLD_RUNS
from tensortune.models.flow import stored_result
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout

target = parse_target_arg("llvm")
model = apply_layout(load_model("alexnet", None, seed=0), "NCHW", target)
res = stored_result(model, target, open_storage(db))
rows = [r for r in res.rows if "matmul" in r.name and r.best_values]
json.dump([(r.task.spec(), r.best_values, r.name) for r in rows], open(os.path.join(os.path.dirname(db), "specs.json"), "w"), default=str)
paths = {}
for r in rows:
    print(r.name, f"tuned {r.best_s*1e6:.1f} us")
    paths[r.name] = tuner_way(r.task.spec(), r.best_values, "no torch run")
built = build_model(model, target, to_database(res.schedules(), target))
x = model.example_input(0)
dev = tvm.cpu()


def run():
    vm = built._vm()
    lib = built._kernel_library()
    args_of = {}

    def instrument(_f, symbol, before, _ret, *args):
        s = str(symbol)
        if before and "matmul" in s and s not in args_of:
            args_of[s] = [tvm.runtime.tensor(a.numpy(), dev) for a in args]
        return 0

    vm.set_instrument(instrument)
    vm["main"](tvm.runtime.tensor(x, dev))
    vm.set_instrument(None)
    for s, a in sorted(args_of.items()):
        name = s.removesuffix("_prepacked")
        ev = lib.time_evaluator(s, dev, number=1, repeat=COLD_RUNS * 5, min_repeat_ms=0, f_preproc="cache_flush_cpu_non_first_arg")
        print(f"{name}\n   model fn on model args        median {np.median(ev(*a).results)*1e6:9.1f} us  shapes {[tuple(t.shape) for t in a]}")
        if name in paths:
            tl = tvm.runtime.load_module(paths[name])
            shapes = json.load(open(paths[name] + ".shapes.json"))
            print(f"   tuner fn arg shapes {shapes}")
            if [list(t.shape) for t in a] == shapes + [list(a[-1].shape)] or [list(t.shape) for t in a][:-1] == shapes[:-1]:
                ev2 = tl.time_evaluator("main", dev, number=1, repeat=COLD_RUNS * 5, min_repeat_ms=0, f_preproc="cache_flush_cpu_non_first_arg")
                print(f"   tuner fn on model args        median {np.median(ev2(*a).results)*1e6:9.1f} us")
                b = [tvm.runtime.tensor(np.random.default_rng(1).standard_normal(t.shape).astype("float32"), dev) for t in a]
                print(f"   tuner fn on fresh random args median {np.median(ev2(*b).results)*1e6:9.1f} us")
                print(f"   model fn on fresh random args median {np.median(ev(*b).results)*1e6:9.1f} us")


call_with_threads(2, run)
for r in rows:
    print(r.name)
    tuner_way(r.task.spec(), r.best_values, "after model")
