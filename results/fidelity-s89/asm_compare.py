import os, sys, tempfile, json
import tvm
from tensortune.core.targets import parse_target
from tensortune.measure import tvm_jobs
from tensortune.models.flow import stored_result
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
from tensortune.storage import SQLiteStorage
target = parse_target("llvm")
model = apply_layout(load_model("resnet18", None, seed=0), "auto", target, "auto")
res = stored_result(model, target, SQLiteStorage("/tmp/r18.db"), recipe="autotvm", seed=0, transfer=True)
row = next(r for r in res.rows if r.task is not None and r.best_values and "winograd3" in r.name)
spec = {"workload": row.task.workload.key, "template": row.task.template, "target": row.task.target_json}
vals = row.task.space.values(row.task.space.from_json(row.best_values))
print("RUNNER BUILD", row.name, vals, flush=True)
path = os.path.join(tempfile.mkdtemp(), "k.so")
print(tvm_jobs.build(spec, vals, path), flush=True)
lib = tvm.runtime.load_module(path)
src = lib.inspect_source("asm") if hasattr(lib, "inspect_source") else lib.get_source("asm")
open("/tmp/runner.s", "w").write(src)
print("asm lines", len(src.splitlines()), flush=True)
from tensortune.templates import get_template
from tvm.s_tir.transform import RemoveWeightLayoutRewriteBlock
mod = get_template(spec["template"]).instantiate(tvm_jobs._workload(spec), vals)
mod = RemoveWeightLayoutRewriteBlock(skip_tensor_rewrite=True)(mod)
rt = tvm.compile(mod, target=tvm_jobs._tvm_target(spec["target"]))
def asm_of(m):
    mm = getattr(m, "mod", m)
    for x in [mm, *mm.imports]:
        try:
            s = x.inspect_source("asm")
            if s: return s
        except Exception as e:
            pass
    return ""
a1 = asm_of(rt); open("/tmp/runner.s","w").write(a1); print("runner asm lines", len(a1.splitlines()), flush=True)
from tensortune.models.build import build_model, to_database
built = build_model(model, target, to_database(res.schedules(), target))
a2 = asm_of(built._kernel_library()); open("/tmp/model.s","w").write(a2); print("model asm lines", len(a2.splitlines()))
