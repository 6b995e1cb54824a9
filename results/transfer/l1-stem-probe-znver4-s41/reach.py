"""Measurements to 95% of the best config of LAYER any run found, per run (with: the stem source in the database).
Usage: python reach.py LAYER DIR"""
import glob, sqlite3, sys
layer, where = sys.argv[1], sys.argv[2]
runs = {}
for path in sorted(glob.glob(f"{where}/*-[0-9].db")):
    rows = sqlite3.connect(path).execute("SELECT task_name, cost, error FROM records WHERE kind='trial' ORDER BY id")
    runs[path.rsplit("/", 1)[1]] = [(c if e == 0 and c else float("inf")) for n, c, e in rows if n == layer]
best = min(min(v) for v in runs.values() if v)
print(f"best {layer} over all runs: {best*1e6:.1f} us")
for name, costs in runs.items():
    reach = next((i + 1 for i, c in enumerate(costs) if c <= best / 0.95), None)
    print(f"{name:16s} {len(costs):3d} measurements, best {min(costs)*1e6:8.1f} us ({best/min(costs):.1%}), to 95%: {reach or '> ' + str(len(costs))}")
