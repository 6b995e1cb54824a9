"""One conv task of a stored whole-model run, its best config, four ways, each cold as the tuner times
(every argument but the input flushed before each run; median of 20 runs), all in this process:
  runner-lib/own:   the tuner's build of the config (``tvm_jobs.build``) on the runner's inputs;
  runner-lib/model: the same library on copies of the arguments the model passes it;
  model-fn/model:   the model's compiled function on those copies (the profile's "alone now");
  model-fn/own:     the model's function on the runner's inputs.
Rounds interleave the four. Usage: python isolate.py MODEL DB SUBSTRING [SEED] (nothing else running)"""
import os
import sys
import tempfile

import numpy as np
import tvm

from tensortune.core.caches import cold_preproc, last_level_cache_bytes
from tensortune.core.targets import parse_target
from tensortune.core.threads import call_with_threads
from tensortune.measure import tvm_jobs
from tensortune.models.build import build_model, to_database
from tensortune.models.check import SUFFIX
from tensortune.models.flow import stored_result
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
from tensortune.storage import SQLiteStorage
from tensortune.templates import get_template

model_name, db, sub = sys.argv[1], sys.argv[2], sys.argv[3]
seed = int(sys.argv[4]) if len(sys.argv) > 4 else 0
target = parse_target("llvm")
model = apply_layout(load_model(model_name, None, seed=seed), "auto", target, "auto")
res = stored_result(model, target, SQLiteStorage(db), recipe="autotvm", seed=seed, transfer=True)
pairs = [(r, t) for r, t in zip(res.rows, res.tasks) if r.task is not None and r.best_values and sub in r.name]
row, mtask = pairs[0]
print(f"task {row.name}; config {row.best_values}; tuned {row.best_s * 1e6:.1f} us", flush=True)

spec = {"workload": row.task.workload.key, "template": row.task.template, "target": row.task.target_json}
vals = row.task.space.values(row.task.space.from_json(row.best_values))
path = os.path.join(tempfile.mkdtemp(), "k.so")
b = tvm_jobs.build(spec, vals, path)
assert "path" in b, b
runner_lib = tvm.runtime.load_module(path)
shapes = tvm_jobs.json.load(open(path + ".shapes.json")) if os.path.exists(path + ".shapes.json") else None

built = build_model(model, target, to_database(res.schedules(), target))
lib = built._kernel_library()
symbol = next(c for c in mtask.callers if lib.implements_function(c, True) or lib.implements_function(c + SUFFIX, True))
symbol = symbol if lib.implements_function(symbol, True) else symbol + SUFFIX
print("model symbol", symbol, flush=True)

dev = tvm.cpu()
captured = {}


def instrument(_f, sym, before, _ret, *args):
    if before and str(sym) == symbol and "args" not in captured:
        captured["args"] = [a.numpy() for a in args]
    return 0


def run_model():
    vm = built._vm()
    vm.set_instrument(instrument)
    vm["main"](tvm.runtime.tensor(model.example_input(seed), dev))


call_with_threads(2, run_model)
model_args = captured["args"]
inputs, ref = tvm_jobs._prepared(spec)
own = list(get_template(spec["template"]).prepare_inputs(row.task.workload, vals, inputs))
if shapes is not None:
    for i, shp in enumerate(shapes[:-1]):
        if tuple(shp) != tuple(own[i].shape):
            own[i] = np.array(tvm_jobs.random_layout(tuple(shp), str(own[i].dtype), i))
own.append(np.zeros(ref.shape, "float32"))
print("shapes model", [a.shape for a in model_args], "own", [a.shape for a in own], flush=True)
print("input stats model: mean|x| %.3g, zeros %.2f; own: mean|x| %.3g, zeros %.2f" % (
    np.abs(model_args[0]).mean(), (model_args[0] == 0).mean(), np.abs(own[0]).mean(), (own[0] == 0).mean()))


def timer(f, name, arrays):
    args = [tvm.runtime.tensor(a, dev) for a in arrays]
    ev = f.time_evaluator(name, dev, number=1, repeat=20, min_repeat_ms=0,
                          f_preproc=cold_preproc(args, last_level_cache_bytes()))
    return lambda: float(np.median(ev(*args).results)) * 1e6


ways = {"runner-lib/own": timer(runner_lib, "main", own), "runner-lib/model": timer(runner_lib, "main", model_args),
        "model-fn/model": timer(lib, symbol, model_args), "model-fn/own": timer(lib, symbol, own)}
got = {k: [] for k in ways}
for rnd in range(5):
    for k, f in ways.items():
        got[k].append(call_with_threads(2, f))
for k, v in got.items():
    print(f"{k:18s} median {np.median(v):9.1f} us  rounds {' '.join(f'{x:.0f}' for x in v)}")
