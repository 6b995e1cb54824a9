"""Stop 82: are VGG-16's transferred first configs on Zen 5 really slower than random ones? For each of four
one-call Winograd tasks that the 200-with run left at 8 measurements, the 3 best of the first 8 configs of the
200-with run (transfer's first plan) and of the 1,000-without run (random), and each run's final best, measured
again in one process, cold caches as in tuning, 5 interleaved rounds (a rotated order each round); medians.
Usage: python probe.py [TASK,TASK,...]  (the databases of run.sh under /work/runs/s82/models; by default the four
below; run6.sh gives the three multi-call ones the build profiles point at)"""
import sqlite3
import statistics

M = "/work/runs/s82/models/"
RUNS = {"with": M + "vgg16-200-with-s82corpus-s0.db", "without": M + "vgg16-1000-without-s0.db"}
TASKS = ["fused_conv2d_winograd1_add1_relu11", "fused_conv2d_winograd3_add2_relu21",
         "fused_conv2d_winograd5_add3_relu31", "fused_conv2d_winograd2_add1_relu11"]


def main():
    import json
    import sys

    tasks = sys.argv[1].split(",") if len(sys.argv) > 1 else TASKS

    from tensortune.core.values import MeasureInput
    from tensortune.measure.tvm_measurer import TimingPolicy, TvmMeasurer
    from tensortune.templates import make_task
    from tensortune.workloads import workload_from_key

    meas = TvmMeasurer(build_workers=2, build_timeout=60.0, run_timeout=30.0,
                       timing=TimingPolicy(5, 40, cold=True), run_threads=2)
    with meas:
        for name in tasks:
            picks, key = {}, None
            for run, db in RUNS.items():
                rows = sqlite3.connect(db).execute(
                    "select task_key, target_key, config_index, cost, flops from records where kind='trial' "
                    "and error=0 and task_name=? order by id", (name,)).fetchall()
                key = rows[0][:2]
                first = sorted(rows[:8], key=lambda r: r[3])[:3]
                picks.update({int(c[2]): f"{run} first-8" for c in first if int(c[2]) not in picks})
                best = min(rows, key=lambda r: r[3])
                picks.setdefault(int(best[2]), f"{run} best of {len(rows)}")
            task_key, target_key = key
            template, wl_key = task_key.split("|", 1)
            task = make_task(workload_from_key(wl_key), template, json.loads(target_key), name)
            cfgs = list(picks)
            got = {c: [] for c in cfgs}
            for r in range(5):
                turn = cfgs[r % len(cfgs):] + cfgs[:r % len(cfgs)]
                for c, res in zip(turn, meas.measure([MeasureInput(task, task.space.config(c)) for c in turn]),
                                  strict=True):
                    got[c].append(task.flops / res.cost / 1e9 if res.ok else 0.0)
            print(name, flush=True)
            for c in sorted(cfgs, key=lambda c: -statistics.median(got[c])):
                print(f"  config {c:>8}  {picks[c]:24s} median {statistics.median(got[c]):6.1f} GFLOP/s "
                      f"(min {min(got[c]):6.1f}, max {max(got[c]):6.1f})", flush=True)


if __name__ == "__main__":
    main()
