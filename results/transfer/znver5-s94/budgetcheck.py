"""Which of the 22 replay cells' first designs the budget variants change (no search): per cell, the first design
with and without them, and each config's share of the table's optimum."""
from pathlib import Path
from tensortune.bench.groundtruth import load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
T = Path(__file__).resolve().parents[1]
cells = (T / "znver5-s93" / "cells.txt").read_text().strip().split(",")
for cell in cells:
    cpu, held = cell.split("/")
    d = None if cpu == "znver5" else str(T / f"tables-{cpu}")
    tabs = {n: load_table(n, d) for n in (["L1", "L8"] if cpu == "znver4" else ["L1", "L2", "L7", "L8"])}
    gt = tabs[held]; sp = gt.task.space
    at = {int(i): j for j, i in enumerate(gt.index)}
    share = lambda c: round(float(gt.gflops[at[sp.index_of(c)]] / gt.optimum_gflops), 3) if sp.index_of(c) in at else None
    p = TransferPrior.from_tables(gt.task, [t for n, t in tabs.items() if n != held], 0, corpus=default_corpus(cpu))
    a, b = p.initial_configs(8), p.initial_configs(8, budget_variants=False)
    print(f"{cell:30s} {'CHANGED' if a != b else 'same   '} with {[share(c) for c in a]} without {[share(c) for c in b]}")
