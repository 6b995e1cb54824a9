"""Stop 109: freeze the six-pass L2 database again with the phase correction (no measurement), and check it as
phase.py did: 3-pass halves frozen by GroundTruth.from_passes alone, against each other.
Usage: python refreeze.py DB OUT_DIR"""
import sys

import numpy as np

from tensortune.bench.groundtruth import groundtruth_task, load_table
from tensortune.storage.sqlite import SQLiteStorage
from tensortune.storage.tables import GroundTruth, spearman, table_path

db, out = sys.argv[1], sys.argv[2]
task = groundtruth_task("L2")
st = SQLiteStorage(db)
runs = sorted({r.run_id for r in st.records(task.key, task.target_json) if r.kind == "trial"})
recs = {run: st.records(task.key, task.target_json, run, kind="trial") for run in runs}
st.close()
old = load_table("L2", out)  # the six-pass table as measured (raw medians)
meta = {k: v for k, v in old.meta.items() if k not in ("passes", "phase_window", "failed", "space_fingerprint",
                                                        "n_configs", "space_size")}


def share(gt):
    g = gt.task.flops / gt.cost
    return g / g.max()


for w in (0, 4):
    halves = [GroundTruth.from_passes(task, [recs[runs[k]] for k in h], meta, phase_window=w)
              for h in ((0, 1, 2), (3, 4, 5), (0, 2, 4), (1, 3, 5))]
    for a, b in ((0, 1), (2, 3)):
        A, B = halves[a], halves[b]
        sa, sb = share(A), share(B)
        print(f"window {w}: halves {a},{b}: Spearman {spearman(A.cost, B.cost):.3f}; optima in the other "
              f"{sb[np.argmax(sa)]:.2f}/{sa[np.argmax(sb)]:.2f}; within 95%: {A.configs_within()}/{B.configs_within()}")
six = GroundTruth.from_passes(task, [recs[r] for r in runs], meta)
six.meta["pass_agreement"] = [round(r, 3) for r in six.pass_agreement()]
print(f"six passes, phase window {six.meta['phase_window']}: optimum {six.optimum_gflops:.1f} GFLOP/s at config "
      f"{int(six.index[np.argmin(six.cost)])}; within 95%: {six.configs_within()}, 90%: {six.configs_within(0.9)}; "
      f"Spearman against the raw six-pass medians {spearman(six.cost, np.median(six.pass_cost, axis=1)):.3f}")
six.save(table_path("L2", out))
