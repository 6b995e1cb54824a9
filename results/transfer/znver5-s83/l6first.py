"""The first design of live L6 (sources: the four znver5 tables + the znver5 corpus), as `bench transfer --live` builds it."""
from tensortune.bench.groundtruth import groundtruth_task, load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
task = groundtruth_task("L6")
tables = [load_table(n, None) for n in ["L1", "L2", "L7", "L8"]]
for seed in (0, 1, 2):
    pr = TransferPrior.from_tables(task, tables, seed, corpus=default_corpus("znver5"))
    print(seed, [task.space.index_of(c) for c in pr.initial_configs()])
