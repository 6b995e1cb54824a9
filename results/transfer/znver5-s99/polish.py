"""Stop 99's experiment: unroll probes of each conv's incumbent after a whole-model run, inside its budget. After
`tensortune tune --model M --trials T-K --seed S --db D` (transfer as shipped), each conv task's stored best config
is measured with each other `auto_unroll_max_step` option (tile, order and every other knob kept), as one more
round of that task in the same run (same run id, so `tensortune build` picks the best of it all), convs by calls x
best time, heaviest first, while the K measurements last. Usage: python polish.py MODEL SEED DB K"""
import argparse
import sys

from tensortune.cli.common import measurer_for, open_storage
from tensortune.cli.main import build_parser
from tensortune.cli.model_cmds import _load
from tensortune.models.flow import _run_id, plan_tasks
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import TransferPrior
from tensortune.tuners import recipes
from tensortune.tuners.loop import Budget, Tuner

model_name, seed, db, k = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
args = build_parser().parse_args(["tune", "--model", model_name, "--seed", str(seed), "--db", db])
model, target = _load(args)
fused, tasks, rows = plan_tasks(model, target, True, "full")
storage = open_storage(db)
measurer = measurer_for(args, target)
corpus = default_corpus()
jobs = []
for r in rows:
    if r.task is None or r.kind != "conv2d" or "auto_unroll_max_step" not in r.task.space.names:
        continue
    run = _run_id(r, args.tuner, seed)
    done = storage.records(r.task.key, r.task.target_json, run, kind="trial")
    top = storage.best(r.task.key, r.task.target_json, k=1, run_id=run)
    if not done or not top or not top[0].ok:
        continue  # a twin tuned for it, or nothing measured
    jobs.append((r.weight * top[0].cost, r, run, len(done), top[0]))
jobs.sort(key=lambda j: -j[0])
left = k
for _w, r, run, n, top in jobs:
    sp = r.task.space
    best = sp.from_json(top.config)
    knob = sp.names.index("auto_unroll_max_step")
    measured = {sp.index_of(sp.from_json(x.config)) for x in storage.records(r.task.key, r.task.target_json, run,
                                                                             kind="trial")}
    probes = []
    for o in range(len(sp.knob("auto_unroll_max_step").options)):
        c = type(best)(indices=tuple(o if j == knob else v for j, v in enumerate(best.indices)))
        if sp.is_valid(c) and sp.index_of(c) not in measured:
            probes.append(c)
    probes = probes[:left]
    if not probes:
        continue
    prior = TransferPrior.from_storage(storage, r.task, seed, {}, corpus)
    strategy = recipes.create(args.tuner, sp, seed, plan_size=16, task=r.task, transfer=prior or None,
                              transfer_fade=16, probes=False, explore=False)
    s = Tuner(r.task, strategy, measurer, storage, Budget(trials=n + len(probes)), tuner_name=args.tuner, seed=seed,
              run_id=run, batch_size=16, remeasure_best=False, initial_configs=probes).run()
    left -= s.trials - n
    print(f"{r.name}: best {top.cost * 1e6:.1f} us {top.config['auto_unroll_max_step']} -> probed "
          f"{[sp.to_json(c)['auto_unroll_max_step'] for c in probes]}: best now {s.best_cost * 1e6:.1f} us "
          f"({s.trials - n} measured, {left} left)", flush=True)
    if left <= 0:
        break
