"""Stop 73: how many configs of each table lie within 95% (and 90%) of its optimum, per CPU and layer.
Usage: python needles.py DIR [DIR ...] (a table directory; 'package' for the package's tables)"""
import sys

from tensortune.bench.groundtruth import load_table

for d in sys.argv[1:]:
    row = []
    for layer in ("L1", "L2", "L7", "L8"):
        t = load_table(layer, None if d == "package" else d)
        row.append(f"{layer} {t.configs_within(0.95)}/{t.configs_within(0.9)}/{t.n}")
    print(f"{d.rstrip('/').split('/')[-1]:40s} {t.meta.get('machine', {}).get('llvm_cpu')}: " + "; ".join(row))
