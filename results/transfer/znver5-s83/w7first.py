"""Rebuild the prior a VGG-16 200-with run had for a task when it first came up: its DB cut before the task's first record."""
import shutil, sqlite3, sys
import numpy as np
from tensortune.storage import SQLiteStorage
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
src_db, name = sys.argv[1], sys.argv[2]
tmp = "/work/runs/s83/cut.db"
shutil.copy(src_db, tmp)
con = sqlite3.connect(tmp)
first = con.execute("select min(id) from records where task_name=?", (name,)).fetchone()[0]
row = con.execute("select task_key, target_key from records where id=?", (first,)).fetchone()
con.execute("delete from records where id>=?", (first,)); con.commit(); con.close()
import json
from tensortune.templates import make_task
from tensortune.workloads import workload_from_key
template, wl = row[0].split("|", 1)
task = make_task(workload_from_key(wl), template, json.loads(row[1]), name)
st = SQLiteStorage(tmp)
pr = TransferPrior.from_storage(st, task, 0, {}, default_corpus("znver5"))
print(name, task.space.size, pr.describe(), "shape", np.round(pr.features.shape, 2))
for s, w, t in sorted(zip(pr.sources, pr.similarity, pr.twin), key=lambda t: -t[1])[:8]:
    print(f"  src {s.name[:60]:60s} w {w:.4f} n {len(s.y)} corpus {s.corpus} twin {t} best {s.y.max()/1e9:.0f} shape {np.round(s.shape,2)}")
for c in pr.initial_configs(8, diverse=int(sys.argv[3]) if len(sys.argv)>3 else 0):
    print("  first", task.space.index_of(c), task.space.to_json(c))
