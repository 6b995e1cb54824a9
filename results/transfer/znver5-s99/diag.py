"""Stop 99: what the transfer prior of VGG-16's task NAME saw at its first round in a 200-with run (the run's database
copied, every record from NAME's first on removed): its sources by similarity, its first design (with RANKED=1 the
model-ranked one of ranked.py), and the rank that prior's cost model, fitted on the sources alone, gives the ten best
configs of a 1,000-without run, and its own top 8. Usage: [RANKED=1] python diag.py RUN.db NAME WITHOUT.db"""
import os, sys
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ranked  # noqa: F401,E402  (wraps initial_configs when RANKED=1)
import shutil, sqlite3, sys, numpy as np
from tensortune.cli.common import open_storage
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import TransferPrior

db_src, name = sys.argv[1], sys.argv[2]
db = '/tmp/diag-s99.db'; shutil.copy(db_src, db)
c = sqlite3.connect(db)
first = c.execute("select min(id) from records where task_name=?", (name,)).fetchone()[0]
c.execute("delete from records where id >= ?", (first,)); c.commit()
print("records before", name, c.execute("select count(*) from records").fetchone()[0])
import argparse
from tensortune.cli.model_cmds import _load
from tensortune.models.flow import plan_tasks
args = argparse.Namespace(model='vgg16', input_shape=None, seed=0, target='llvm', layout='NCHW', winograd='auto')

args.layout = "auto"
model, target = _load(args)
fused, tasks, rows = plan_tasks(model, target, True, "full")
row = [r for r in rows if r.name == name][0]
task = row.task
st = open_storage(db)
prior = TransferPrior.from_storage(st, task, 0, {}, default_corpus())
sp = task.space
print("sources:", len(prior.sources))
order = np.argsort(-np.array(prior.similarity))
for j in order[:8]:
    s = prior.sources[j]
    print(f"  {s.name[:60]:60s} sim {prior.similarity[j]:.3f} corpus {s.corpus} n {len(s.y)} best {s.y.max():.1f}")
for c in prior.initial_configs(8):
    print("  init", c)
from tensortune.tuners.recipes import transfer_loss, RECIPES
from tensortune.cost_models.registry import make_cost_model
import inspect
print("space size", sp.size)
r = RECIPES["autotvm"] if "autotvm" in RECIPES else None
model = make_cost_model(r.cost_model, loss=transfer_loss(r, prior), seed=0)
pm = prior.cost_model(model, 16)
enc = prior.model_features.encode_indices
pm.fit(np.zeros((0, enc([0]).shape[1])), np.zeros(0))
idx = np.arange(sp.size)
pred = pm.predict(enc(idx))
rank = np.argsort(-pred)
pos = {int(i): k for k, i in enumerate(rank)}
import json
def show(cfgj):
    c = sp.from_json(cfgj) if hasattr(sp, 'from_json') else None
    return c
conn = sqlite3.connect(sys.argv[3])
rows = conn.execute("select cost, config from records where task_name=? and error=0 and kind='trial' order by cost limit 10", (name,)).fetchall()
print("1000-without best configs: predicted rank among", sp.size)
for cost, cj in rows:
    c = sp.from_json(json.loads(cj)); i = sp.index_of(c)
    print(f"  {cost*1e6:7.1f} us rank {pos[i]:5d}  {cj}")
print("first design ranks:", [pos[sp.index_of(c)] for c in prior.initial_configs(8)])
print("model's top 8:")
for i in rank[:8]:
    print("  ", sp.to_json(sp.config(int(i))) if hasattr(sp, 'config') else int(i))
