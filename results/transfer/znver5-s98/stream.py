import sys
from tensortune.cli.common import parse_target_arg
from tensortune.models.allocation import TaskProgress
from tensortune.models.flow import plan_tasks
from tensortune.models.importer import load_model
for name in sys.argv[1:]:
    fused, tasks, rows = plan_tasks(load_model(name, None, seed=0), parse_target_arg("llvm"))
    ab = {t.name: t.arg_bytes for t in tasks}
    for r in rows:
        p = TaskProgress(1, r.flops, r.kind, 1, arg_bytes=ab.get(r.name, 0))
        print(f"{name:9s} {r.name:40s} {r.kind:10s} {r.flops/1e6:10.1f} MFLOP {p.arg_bytes/1e6:9.2f} MB  {r.flops/max(p.arg_bytes,1):8.2f} F/B  stream={p.streaming}")
