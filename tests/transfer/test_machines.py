"""Records and tables know their machine (issue 19, item 7): a table from another CPU is named loudly by
every benchmark that replays it, records carry the device they were measured on, and the transfer
prior treats another CPU's records and tables as a prior (weight cut), not this machine's truth."""

from __future__ import annotations

import copy
import subprocess
import sys

import numpy as np

from tensortune.bench.groundtruth import GroundTruth, load_table
from tensortune.core.targets import device_name


def _foreign(gt: GroundTruth) -> GroundTruth:
    meta = copy.deepcopy(gt.meta)
    meta["machine"].update({"cpu": "Some Other CPU", "llvm_cpu": "znver4"})
    return GroundTruth(gt.task, meta, gt.index, gt.cost, gt.error, gt.build_s, gt.run_wall_s)


def test_tables_name_their_machine_and_warn_when_it_is_another():
    gt = load_table("L8")
    assert gt.meta["machine"]["llvm_cpu"] and gt.meta["machine"]["cpu"]
    here = copy.deepcopy(gt.meta)
    cpu, llvm = device_name().rsplit(" (", 1)
    here["machine"].update({"cpu": cpu, "llvm_cpu": llvm.rstrip(")")})
    same = GroundTruth(gt.task, here, gt.index, gt.cost, gt.error, gt.build_s, gt.run_wall_s)
    assert same.foreign() is None
    msg = _foreign(gt).foreign()
    assert msg and "Some Other CPU (znver4)" in msg and "tensortune groundtruth --layers L8" in msg


def test_bench_says_loudly_when_a_table_is_from_another_cpu(tmp_path):
    _foreign(load_table("L8")).save(tmp_path / "tables" / "L8.json.gz")
    r = subprocess.run([sys.executable, "-m", "tensortune.cli.main", "bench", "--layers", "L8", "--budgets", "16",
                        "--seeds", "0", "--recipes", "random", "--peers", "none", "--tables", str(tmp_path / "tables"),
                        "--out", str(tmp_path / "out"), "--no-progress"], capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert "WARNING: table L8 was measured on Some Other CPU (znver4)" in r.stderr


def test_records_carry_the_device_and_foreign_ones_weigh_less(tmp_path):
    from tensortune.measure.replay import ReplayMeasurer
    from tensortune.storage import SQLiteStorage
    from tensortune.transfer import TransferPrior
    from tensortune.transfer.prior import FOREIGN_WEIGHT
    from tensortune.tuners import Budget, Tuner, create

    class OtherMachine(ReplayMeasurer):
        def protocol(self):
            return {"measurer": "replay", "device": "Some Other CPU (znver4)"}

    gt7, gt8 = load_table("L7"), load_table("L8")
    db = SQLiteStorage(tmp_path / "r.db")
    Tuner(gt7.task, create("random", gt7.task.space, 0), OtherMachine([gt7]), db, Budget(trials=32), seed=0).run()
    recs = db.records(kind="trial")
    assert recs and all(r.extra["device"] == "Some Other CPU (znver4)" for r in recs)
    foreign = TransferPrior.from_storage(db, gt8.task)
    assert foreign.sources[0].foreign and "another CPU" in foreign.describe()
    home = TransferPrior.from_tables(gt8.task, [gt7])
    if load_table("L7").foreign() is None:  # on the tables' own kind of machine
        assert not home.sources[0].foreign
        assert np.isclose(foreign.similarity[0], FOREIGN_WEIGHT * home.similarity[0])
    away = TransferPrior.from_tables(gt8.task, [_foreign(gt7)])
    assert away.sources[0].foreign and np.isclose(away.similarity[0] / FOREIGN_WEIGHT,
                                                  TransferPrior.from_tables(gt8.task, [gt7]).similarity[0]
                                                  / (FOREIGN_WEIGHT if gt7.foreign() else 1.0))
