import json, sys
import numpy as np
from tensortune.bench.groundtruth import load_table, groundtruth_task
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.features import _factor_distance
from tensortune.space import Config

def grow(own, cfg, regs):
    (py, by), (px, bx) = own._axes
    pf, lane, fblock = own._lanes
    chan = tuple(f for f in fblock if f != lane)
    fknob = own.space.knobs[pf]; fcur = fknob.options[cfg.indices[pf]]
    c_now = int(np.prod([fcur[f] for f in chan]))
    ry, rx = own._tile(py, by, cfg.indices[py]), own._tile(px, bx, cfg.indices[px])
    cap = regs * 3 // 4
    if ry * rx * c_now * 2 > cap: return []
    fits = sorted((_factor_distance(o, fcur, fblock), i) for i, o in enumerate(fknob.options)
                  if o[lane] == fcur[lane] and int(np.prod([o[f] for f in chan])) == 2 * c_now)
    for _, fi in fits:
        idx = list(cfg.indices); idx[pf] = fi
        c = Config(tuple(idx))
        if own.space.is_valid(c): return [c]
    return []

D = "/work/main/results/transfer/tables-znver4"
docs = [json.load(open(f"/work/main/results/transfer/znver4-s101/{x}/results.json")) for x in ("reconfirm", "live56")]
tables = [load_table(n, D) for n in ["L1", "L2", "L7", "L8"]]
for held in sys.argv[1].split(","):
    task = groundtruth_task(held); sp = task.space
    conf = {}
    for dd in docs:
        for k, v in dd.get("confirmed", {}).get(held, {}).items():
            conf.setdefault(int(k), []).append(v)
    conf = {k: float(np.median(v)) for k, v in conf.items()}
    opt = max(conf.values())
    prior = TransferPrior.from_tables(task, tables, 0, corpus=default_corpus("znver4"))
    first = prior.initial_configs()
    own = prior.features
    for c in first[:3]:
        for g in grow(own, c, 32):
            j = sp.index_of(g)
            print(held, "from", sp.index_of(c), "->", j, conf.get(j, 0) / opt if j in conf else None, sp.to_json(g))
