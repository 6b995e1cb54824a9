# Stop 71: which held-out layers (per CPU, per seed) have mapped first designs holding one lane count or both.
import sys
from tensortune.bench.groundtruth import load_table, groundtruth_task
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
sets = {"znver3": "/work/main/results/transfer/tables-znver3", "emeraldrapids": "/work/main/results/transfer/tables-emeraldrapids",
        "rocketlake": "/work/main/results/transfer/tables-rocketlake", "znver4": "/work/main/results/transfer/tables-znver4-no-avx512-no-gfni",
        "znver5": "/work/main/src/tensortune/bench/tables"}
for name, T in sets.items():
    tabs = {l: load_table(l, T) for l in ["L1", "L2", "L7", "L8"]}
    corpus = default_corpus(tabs["L1"].meta.get("machine", {}).get("llvm_cpu"))
    layers = ["L1", "L2", "L7", "L8"] + (["L3", "L4", "L5", "L6"] if name == "znver3" else [])
    for H in layers:
        task = tabs[H].task if H in tabs else groundtruth_task(H)
        out = []
        for seed in range(6):
            p = TransferPrior.from_tables(task, [t for l, t in tabs.items() if l != H], seed, corpus=corpus)
            cfgs = p.initial_configs(8, lane_variants=False)
            out.append(tuple(sorted({task.space.to_json(c)["tile_f"][3] for c in cfgs})))
        print(name, H, "mapped lanes per seed:", out, flush=True)
