"""Stop 100: VGG-16's tasks, 200 with / 1,000 without, per seed, from the tune reports (each run's own best tuned
time per task, measured in its own run, so minutes apart: a lead, not a side-by-side figure). Usage: python
pertask.py (in this directory's models/)."""
import json
for s in (1, 2):
    a = {t["name"]: t for t in json.load(open(f"vgg16-200-with-s{s}.json"))["tasks"]}
    b = {t["name"]: t for t in json.load(open(f"vgg16-1000-without-s{s}.json"))["tasks"]}
    rows = []
    for n in a:
        if n in b and a[n]["best_s"] and b[n]["best_s"]:
            da = a[n]["best_s"] * a[n]["calls"]; db = b[n]["best_s"] * b[n]["calls"]
            rows.append((da - db, n, a[n]["trials"], b[n]["trials"], a[n]["best_s"] / b[n]["best_s"], db))
    tot_a = sum(a[n]["best_s"] * a[n]["calls"] for n in a if a[n]["best_s"]); tot_b = sum(b[n]["best_s"] * b[n]["calls"] for n in b if b[n]["best_s"])
    print(f"seed {s}: tuned sums {tot_a*1e3:.2f} / {tot_b*1e3:.2f} ms ({tot_a/tot_b:.3f})")
    for d, n, ta, tb, r, db in sorted(rows, reverse=True)[:6]:
        print(f"   {n:40s} meas {ta:4d} / {tb:4d}  ratio {r:.3f}  +{d*1e3:.3f} ms of {db*1e3:.2f}")
