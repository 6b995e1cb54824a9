"""Is the instrumented profile biased? Compare whole-model time, instrumented sum, no-op instrument."""
import sys, time, argparse
import numpy as np
from tensortune.cli.model_cmds import _load
from tensortune.models.flow import stored_result
from tensortune.models.build import build_model, to_database
from tensortune.core.threads import call_with_threads
from tensortune.storage.sqlite import SQLiteStorage

db = sys.argv[1]
args = argparse.Namespace(target="llvm", model="resnet18", input_shape=None, seed=0, layout="auto")
model, target = _load(args)
st = SQLiteStorage(db)
res = stored_result(model, target, st)
built = build_model(model, target, to_database(res.schedules(), target))
x = model.example_input(0)
import tvm

def body():
    vm = built._vm()
    inp = tvm.runtime.tensor(x, tvm.cpu())
    for _ in range(3): vm["main"](inp)
    out = {}
    def loop(n):
        ts = []
        for _ in range(n):
            t = time.perf_counter(); vm["main"](inp); ts.append(time.perf_counter() - t)
        return float(np.median(ts)) * 1e3
    ev = vm.time_evaluator("main", tvm.cpu(), number=1, repeat=10, min_repeat_ms=200)
    for rnd in range(3):
        out.setdefault("time_evaluator", []).append(float(np.median(ev(inp).results)) * 1e3)
        out.setdefault("python loop", []).append(loop(30))
        def noop(*a): return 0
        vm.set_instrument(noop)
        out.setdefault("noop instrument loop", []).append(loop(30))
        vm.set_instrument(None)
        stack, times = [], {}
        def instr(_f, sym, before, _r, *a):
            if before: stack.append(time.perf_counter())
            else: times.setdefault(str(sym), []).append(time.perf_counter() - stack.pop())
            return 0
        vm.set_instrument(instr)
        out.setdefault("timing instrument loop", []).append(loop(10))
        vm.set_instrument(None)
        out.setdefault("sum of instrumented calls", []).append(sum(sum(v) for v in times.values()) / 10 * 1e3)
    return out
r = call_with_threads(2, body)
for k, v in r.items(): print(f"{k:30s} " + " ".join(f"{a:7.2f}" for a in v))
