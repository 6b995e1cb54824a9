"""Stop 102: L4's first-design configs with only their reduction split changed to that of L4's confirmed best configs
(tile_rc [64, 1] or [1, 64], kernel rows and columns unrolled: tile_ry [1, 3], tile_rx [1, 3]), measured beside the
configs they change and L4's best in 5 interleaved rounds, one pass. Prints each config's share of the best median.
Usage: python reduction_probe.py (writes reduction_probe.json here)."""
import json

from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.bench.transfer import confirm_live

task = groundtruth_task("L4")
sp = task.space
base = [9269, 9194, 14120, 9250]  # the first design's 1st, 3rd, 5th, 2nd configs (seed 0)
refs = [4629, 15200]  # L4's best confirmed configs (stop 101, this stop's probe)
ids, made = list(refs), {}
for b in base:
    ids.append(b)
    v = sp.to_json(sp.config(b))
    for rc in ([64, 1], [1, 64]):
        c = sp.from_json({**v, "tile_rc": rc, "tile_ry": [1, 3], "tile_rx": [1, 3]})
        if sp.is_valid(c) and sp.index_of(c) not in ids:
            ids.append(sp.index_of(c))
            made[sp.index_of(c)] = (b, rc)
with groundtruth_measurer(task) as m:
    got = confirm_live(task, m, ids, 5)
best = max(got.values())
for c in ids:
    how = f"from {made[c][0]}, tile_rc {made[c][1]}" if c in made else "as is"
    print(f"L4 {c:6d} {got[str(c)]:7.1f} {got[str(c)] / best:.3f}  {how}  {sp.to_json(sp.config(c))}")
json.dump({"medians": got, "made": {str(k): v for k, v in made.items()}}, open("reduction_probe.json", "w"), indent=1)
