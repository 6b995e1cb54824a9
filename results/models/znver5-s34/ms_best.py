"""Print MetaSchedule's best schedule (its own runner's mean time) of each task whose best time lies in
a window, from a MetaSchedule work dir: `python ms_best.py WORK_DIR LOW_US HIGH_US`."""
import sys

import tvm
from tvm.s_tir import meta_schedule as ms

work, lo, hi = sys.argv[1], float(sys.argv[2]) * 1e-6, float(sys.argv[3]) * 1e-6
best: dict[str, tuple[float, object]] = {}
for r in ms.database.JSONDatabase(work_dir=work).get_all_tuning_records():
    if not r.run_secs:
        continue
    t = sum(float(x) for x in r.run_secs) / len(r.run_secs)
    key = r.workload.mod.script()
    if t < 1 and (key not in best or t < best[key][0]):
        best[key] = (t, r)
for t, r in sorted(best.values(), key=lambda x: x[0]):
    if lo <= t <= hi:
        sch = tvm.s_tir.Schedule(r.workload.mod)
        r.trace.apply_to_schedule(sch, remove_postproc=False)
        print(f"# best {t * 1e6:.1f} us\n{sch.mod.script()}\n")
        break
