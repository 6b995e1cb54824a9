"""Which whole-model tasks (ResNet-18, VGG-16; --layout auto, --winograd auto, as tune --model) get lane variants."""
import sys
from tensortune.core.targets import default_cpu_target
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
from tensortune.models.flow import plan_tasks
from tensortune.transfer import TransferFeatures
target = default_cpu_target()
for name in sys.argv[1:]:
    m = apply_layout(load_model(name), "auto", target, winograd="auto")
    _, _, rows = plan_tasks(m, target)
    tuned = [r for r in rows if r.task is not None]
    with_lanes = [(r.name, r.template) for r in tuned if TransferFeatures(r.task)._lanes is not None]
    print(name, len(tuned), "tuned tasks;", len(with_lanes), "with lane variants:", with_lanes)
    print("  templates:", sorted({r.template for r in tuned}))
