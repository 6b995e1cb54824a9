"""Build MetaSchedule's stored run of a model (its JSON database from a tune --compare metaschedule work dir)
as a library, with the layout that run used (blocked, direct convs), checked against PyTorch.
Usage: python ms_lib.py WORK_DIR OUT.so [MODEL (default resnet18)]"""
import sys

import numpy as np
from tvm.s_tir import meta_schedule as ms

from tensortune.core.targets import default_cpu_target
from tensortune.core.threads import call_with_threads, target_cores
from tensortune.models.build import build_model
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout

work, out = sys.argv[1], sys.argv[2]
name = sys.argv[3] if len(sys.argv) > 3 else "resnet18"
target = default_cpu_target()
m = apply_layout(load_model(name), "auto", target, "off")
db = ms.database.JSONDatabase(work_dir=work)
built = build_model(m, target, database=db)
x = m.example_input()
y = call_with_threads(target_cores(target), lambda: built.run(x))
print("max abs error against PyTorch", float(np.abs(y - m.torch_output(x)).max()))
built.executable.export_library(out)
print("wrote", out)
