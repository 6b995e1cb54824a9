"""Re-measure the top-k stored configs of some tasks with the tuning measurer (cold), interleaved rounds."""
import sys, numpy as np
from tensortune.models.importer import load_model
from tensortune.cli.common import parse_target_arg
from tensortune.models.layout import apply_layout
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.models.flow import plan_tasks, _run_id
from tensortune.measure.tvm_measurer import TvmMeasurer, TimingPolicy
from tensortune.core.values import MeasureInput

db, pat, k, rounds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
target = parse_target_arg("llvm")
model = apply_layout(load_model("resnet18"), "auto", target)
st = SQLiteStorage(db, readonly=True)
_, _, rows = plan_tasks(model, target, True, "full")
rows = [r for r in rows if r.task is not None and pat in r.name]
plan = []
for r in rows:
    top = st.best(r.task.key, r.task.target_json, k=k, run_id=_run_id(r, "autotvm", 0))
    for i, t in enumerate(top):
        plan.append((r, i, t, r.task.space.from_json(t.config)))
m = TvmMeasurer(timing=TimingPolicy(5, 40, cold=True), run_threads=2)
got = {}
with m:
    for rnd in range(rounds):
        res = m.measure([MeasureInput(r.task, c) for r, i, t, c in plan])
        for (r, i, t, c), mr in zip(plan, res):
            got.setdefault((r.name, i), []).append(np.median(mr.costs) * 1e6 if mr.ok else float("nan"))
for (r, i, t, c) in plan:
    v = got[(r.name, i)]
    print(f"{r.name[:40]:40s} #{i} stored {t.cost*1e6:7.1f}  now {' '.join(f'{x:7.1f}' for x in v)}  med {np.median(v):7.1f}")
