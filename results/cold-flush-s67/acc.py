# VGG-16 fc6 (MetaSchedule space, 411 MB of weights): cold runs with and without the flush of the arguments,
# interleaved, for the N best configs of a tuning database; and the wall time of each run step
import json, os, sqlite3, sys, time
os.environ.setdefault("TVM_NUM_THREADS", "2")
import numpy as np
from tensortune.core import caches
from tensortune.measure import tvm_jobs as J
from tensortune.templates import make_task
from tensortune.workloads import workload_from_key
from tensortune.core.targets import device_name
db, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
name = sys.argv[4] if len(sys.argv) > 4 else "fused_matmul_add5_relu51"
c = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
rows = c.execute("select task_key, target_key, config, cost from records where task_name=? and error=0 order by cost", (name,)).fetchall()
seen, picks = set(), []
for tk, tgt, cfg, cost in rows:
    if cfg not in seen:
        seen.add(cfg); picks.append((tk, tgt, cfg, cost))
    if len(picks) >= n:
        break
print("device", device_name(), "LLC", caches.last_level_cache_bytes())
libs = []
for i, (tk, tgt, cfg, cost) in enumerate(picks):
    template, wl_key = tk.split("|", 1)
    task = make_task(workload_from_key(wl_key), template, json.loads(tgt), tk)
    values = task.space.values(task.space.from_json(json.loads(cfg)))
    spec = task.spec()
    out = J.build(spec, values, f"/tmp/prof/k{i}.so")
    libs.append((spec, values, out["path"], cost))
J.prepare(libs[0][0])
timing = {"repeat": 20, "min_repeat_ms": 0, "cold": True}
real = caches.last_level_cache_bytes
res = {(i, m): [] for i in range(len(libs)) for m in ("flush", "noflush")}
wall = {"flush": [], "noflush": []}
for r in range(rounds):
    for i, (spec, values, path, cost) in enumerate(libs):
        for m in (("flush", "noflush") if (r + i) % 2 == 0 else ("noflush", "flush")):
            caches.last_level_cache_bytes = (lambda: None) if m == "flush" else real
            t = time.perf_counter()
            o = J.run_local(path, spec, values, timing)
            wall[m].append(time.perf_counter() - t)
            res[(i, m)].append(float(np.median(o["costs"])) * 1e3)
for i, (_, _, _, cost) in enumerate(libs):
    f, nf = np.median(res[(i, "flush")]), np.median(res[(i, "noflush")])
    print(f"config {i} (tuned {cost*1e3:.2f} ms): flush {f:.2f} ms  no flush {nf:.2f} ms  ratio {nf/f:.3f}  rounds {[round(x,2) for x in res[(i,'flush')]]} {[round(x,2) for x in res[(i,'noflush')]]}")
print("run step wall, median s: flush %.2f  no flush %.2f" % (np.median(wall["flush"]), np.median(wall["noflush"])))
