"""``tensortune export --format metaschedule``: the best schedule of every whole-model task in a
records database, as a MetaSchedule JSON database in a directory that TVM's standard
``relax.pipeline.static_shape_tuning_pipeline(total_trials=0, target=..., work_dir=DIR,
cpu_weight_prepack=True)`` reads as it is (the ``database_*.json`` names its work dir uses). CPU
weight prepacking must be on there: our conv schedules rewrite the weight layout, which needs the
layout-free buffer attribute that pipeline attaches only with it."""

from __future__ import annotations

import json
import os
import shutil
from typing import Any

from tensortune.models.build import TunedSchedule, to_database

WORKLOADS, RECORDS = "database_workload.json", "database_tuning_record.json"


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
    # written into a new directory beside out_dir, then renamed into place: a full disk or a crash leaves
    # the old export (or none), never half of one
    out = os.path.abspath(out_dir)
    tmp = f"{out}.{os.getpid()}.tmp"
    old = f"{out}.{os.getpid()}.old"
    shutil.rmtree(tmp, ignore_errors=True)
    try:
        os.makedirs(tmp)
        # the names TVM's own pipelines read from a work dir (static_shape_tuning_pipeline, MetaScheduleApplyDatabase)
        db = ms.database.JSONDatabase(os.path.join(tmp, WORKLOADS), os.path.join(tmp, RECORDS))
        for (task_key, target_key), rec in sorted(best.items()):
            template, wl_key = task_key.split("|", 1)
            wl = TirWorkload(wl_key[4:])
            to_database([TunedSchedule(wl.mod, template, rec.config, rec.cost, wl.task_key)], json.loads(target_key), db)
        del db
        for name in (WORKLOADS, RECORDS):
            with open(os.path.join(tmp, name), "rb+") as f:
                os.fsync(f.fileno())
        if os.path.exists(out):
            os.rename(out, old)
        os.rename(tmp, out)
        shutil.rmtree(old, ignore_errors=True)
    except BaseException as e:
        shutil.rmtree(tmp, ignore_errors=True)
        if os.path.exists(old) and not os.path.exists(out):
            os.rename(old, out)
        if isinstance(e, Exception) and not isinstance(e, OSError) and "No space" in str(e):
            raise OSError(28, "No space left on device") from None
        raise
    return len(best)
