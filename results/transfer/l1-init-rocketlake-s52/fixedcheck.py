"""Which split knobs of the whole-model tasks hold a factor at 1 in every option (where the fold applies)?"""
from tensortune.core.targets import default_cpu_target
from tensortune.models.flow import plan_tasks
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
from tensortune.transfer import TransferFeatures

target = default_cpu_target()
for name in ("resnet18", "vgg16"):
    m = load_model(name)
    for wg in ("auto", "off"):
        mod = apply_layout(m, "auto", target, winograd=wg)
        _f, _t, rows = plan_tasks(mod, target, True, "full")
        hits = []
        for r in rows:
            if r.task is None:
                continue
            f = TransferFeatures(r.task)
            for k, fx in zip(r.task.space.knobs, f._fixed_factors):
                if fx and len(k.options) > 1:
                    hits.append((r.task.template, k.name, fx, len(k.options)))
        print(name, "winograd", wg, "tasks", sum(r.task is not None for r in rows), "knobs with a fixed factor:", sorted(set(hits)))
