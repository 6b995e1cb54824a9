"""What a plain TVM user does with our export: import the PyTorch model with TVM's own frontend,
compile it with TVM's standard ``relax.pipeline.static_shape_tuning_pipeline(total_trials=0,
work_dir=<the export>, cpu_weight_prepack=True)``, and run it. Used by ``--compare plain-tvm`` so the
export is checked and timed in the same run as our build."""

from __future__ import annotations

import os
from typing import Any

from tensortune.models.build import BuiltModel
from tensortune.models.export import RECORDS, WORKLOADS


def export_schedules(schedules: list[Any], target: dict[str, Any], out_dir: str) -> int:
    """The schedules as a MetaSchedule JSON database in ``out_dir`` (the export's file names)."""
    from tvm.s_tir import meta_schedule as ms

    from tensortune.models.build import to_database

    os.makedirs(out_dir, exist_ok=True)
    for name in (WORKLOADS, RECORDS):  # a fresh database: stale records would be applied too
        if os.path.exists(os.path.join(out_dir, name)):
            os.unlink(os.path.join(out_dir, name))
    db = ms.database.JSONDatabase(os.path.join(out_dir, WORKLOADS), os.path.join(out_dir, RECORDS))
    to_database(schedules, target, db)
    return len(schedules)


def build_plain_tvm(torch_module: Any, example: Any, target: dict[str, Any], work_dir: str) -> BuiltModel:
    """TVM's own import and standard tuning pipeline with no trials, reading ``work_dir``."""
    import torch
    import tvm
    from tvm import relax
    from tvm.relax.frontend.torch import from_exported_program

    with torch.no_grad():
        exported = torch.export.export(torch_module.eval(), (torch.from_numpy(example),))
    mod = from_exported_program(exported)
    tgt = tvm.target.Target(target)
    mod = relax.pipeline.static_shape_tuning_pipeline(total_trials=0, target=tgt, work_dir=work_dir,
                                                      cpu_weight_prepack=True)(mod)
    return BuiltModel(tvm.compile(mod, target=tgt), dict(target))
