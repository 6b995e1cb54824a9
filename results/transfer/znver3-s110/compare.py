"""Stop 109: a multi-pass table against a one-pass table of the same layer and CPU: Spearman, each optimum in the
other, configs within 95%, the passes' agreement. Usage: python compare.py LAYER NEW_DIR OLD_DIR (cheap)."""
import sys

import numpy as np

from tensortune.bench.groundtruth import load_table
from tensortune.storage.tables import spearman

layer, new_dir, old_dir = sys.argv[1:4]
new, old = load_table(layer, new_dir), load_table(layer, old_dir)
assert new.index.tolist() == old.index.tolist()
sn, so = new.gflops / new.optimum_gflops, old.gflops / old.optimum_gflops
ok = np.isfinite(new.cost) & np.isfinite(old.cost)
top = sn >= 0.5
print(f"{layer}: new table {new.passes} passes (agreement {new.meta.get('pass_agreement')}), optimum "
      f"{new.optimum_gflops:.1f} GFLOP/s at config {int(new.index[np.argmax(sn)])}, within 95%: {new.configs_within()}; "
      f"old: {old.passes} pass, optimum {old.optimum_gflops:.1f} at config {int(old.index[np.argmax(so)])}, within 95%: "
      f"{old.configs_within()}")
print(f"Spearman new vs old {spearman(new.cost[ok], old.cost[ok]):.3f} (configs >= 50% in new: "
      f"{spearman(new.cost[ok & top], old.cost[ok & top]):.3f}); old optimum at {sn[np.argmax(so)]:.3f} in new; "
      f"new optimum at {so[np.argmax(sn)]:.3f} in old")
if new.pass_cost is not None:
    j = int(np.argmax(sn))
    print("new optimum per pass (GFLOP/s): " + ", ".join(f"{new.task.flops / c / 1e9:.1f}" for c in new.pass_cost[j]))
