"""L4's first configs (stop 52): what the rebuilt corpus's 64-channel 128 px layer maps to (tile_x [16,1,14]),
what stop 51's corpus mapped to, and the same configs with tile_x [28,1,8] (the source's 8-column register tile),
measured on L4 with the live protocol, 7 interleaved rounds (bench transfer's confirm_live)."""
from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.bench.transfer import confirm_live
from tensortune.space import Config

task = groundtruth_task("L4")
cfgs = {"s51 first (7,1,2,1,0,1,1,0)": (7, 1, 2, 1, 0, 1, 1, 0), "s51 second (6,2,1,0,0,1,1,0)": (6, 2, 1, 0, 0, 1, 1, 0),
        "s52 first (7,1,5,1,1,1,1,0)": (7, 1, 5, 1, 1, 1, 1, 0), "s52 second (9,0,5,1,1,1,1,0)": (9, 0, 5, 1, 1, 1, 1, 0),
        "x8 of s52 first (7,1,4,1,1,1,1,0)": (7, 1, 4, 1, 1, 1, 1, 0),
        "x8 of s52 second (9,0,4,1,1,1,1,0)": (9, 0, 4, 1, 1, 1, 1, 0)}
idx = {k: int(task.space.index_of(Config(v))) for k, v in cfgs.items()}
with groundtruth_measurer(task) as m:
    got = confirm_live(task, m, list(idx.values()), 7)
for k, i in idx.items():
    print(f"{k:40s} {task.space.to_json(Config(cfgs[k]))['tile_x']}  median {got[str(i)]:.1f} GFLOP/s "
          f"({got[str(i)] / 356.0192:.3f} of stop 52's L4 optimum)")
