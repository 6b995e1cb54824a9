"""``tensortune export --format metaschedule``: the best schedule of every whole-model task in a
records database, as a MetaSchedule JSON database a TVM user can hand to ``compile_relax`` or
``MetaScheduleApplyDatabase``."""

from __future__ import annotations

import json
import os
from typing import Any

from tensortune.models.build import TunedSchedule, to_database


def export_metaschedule(storage: Any, out_dir: str) -> int:
    from tvm.s_tir import meta_schedule as ms

    from tensortune.workloads.tir import TirWorkload

    best: dict[tuple[str, str], Any] = {}
    for rec in storage.records():
        if "|tir:" not in rec.task_key or not rec.ok:
            continue
        k = (rec.task_key, rec.target_key)
        if k not in best or rec.cost < best[k].cost:
            best[k] = rec
    if not best:
        return 0
    os.makedirs(out_dir, exist_ok=True)
    db = ms.database.JSONDatabase(os.path.join(out_dir, "workload.json"), os.path.join(out_dir, "tuning_record.json"))
    for (task_key, target_key), rec in sorted(best.items()):
        template, wl_key = task_key.split("|", 1)
        wl = TirWorkload(wl_key[4:])
        to_database([TunedSchedule(wl.mod, template, rec.config, rec.cost, wl.task_key)], json.loads(target_key), db)
    return len(best)
