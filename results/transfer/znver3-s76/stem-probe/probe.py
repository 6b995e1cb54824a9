"""Stop 76 probe: does a better-measured corpus stem give ResNet-18's stem a better start with transfer?
A: corpusnet's stem task (the shipped corpus's source, 40 records), autotvm without transfer, N measurements, cold caches.
B: ResNet-18's stem task, 24 measurements (8 mapped + 16 planned, as the 200-with run gives it), seeds S:
   transfer from the shipped corpus, and from the shipped corpus with A's records added; and without transfer, 80.
"""
import copy, json, sys, time
import argparse
from tensortune.cli.common import measurer_for, parse_target_arg
from tensortune.models.corpus import corpus_model
from tensortune.models.flow import plan_tasks
from tensortune.models.importer import load_model
from tensortune.models.layout import apply_layout
from tensortune.cli.common import open_storage
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
from tensortune.tuners import recipes
from tensortune.tuners.loop import Budget, Tuner

what, db = sys.argv[1], sys.argv[2]
target = parse_target_arg("llvm")
args = argparse.Namespace(target="llvm", functional=False, rpc=None, cache="cold", repeat=5, min_repeat_ms=40,
                          build_workers=2, build_timeout=60.0, run_timeout=30.0, rpc_parallel=1, memory_limit=None,
                          model="x")
measurer = measurer_for(args, target)
storage = open_storage(db)

def stem(model):
    _f, _t, rows = plan_tasks(model, target)
    hit = [r for r in rows if r.task is not None and r.name.startswith("fused_conv2d_NCHWc_")]
    assert len(hit) == 1, [x.name for x in rows]
    return hit[0].task

def run(task, seed, n, prior=None, first=None, run_id=None, tuner="autotvm"):
    strat = recipes.create("autotvm", task.space, seed, plan_size=16, task=task, transfer=prior or None, transfer_fade=16)
    return Tuner(task, strat, measurer, storage, Budget(trials=n), tuner_name=tuner, seed=seed, run_id=run_id,
                 batch_size=16, remeasure_best=False, initial_configs=first).run()

def gfl(task, recs):
    return sorted((task.flops / r.cost / 1e9 for r in recs if r.ok), reverse=True)

with measurer:
    if what == "A":
        n = int(sys.argv[3])
        task = stem(corpus_model(target, 0, "corpusnet", "off"))
        print("corpusnet stem", task.key, task.space.size, flush=True)
        t0 = time.time()
        s = run(task, 0, n, run_id="s76-corpus-stem")
        recs = storage.records(task.key, task.target_json, "s76-corpus-stem", kind="trial")
        best, cur = [], 0.0
        for i, r in enumerate(recs):
            if r.ok: cur = max(cur, task.flops / r.cost / 1e9)
            if (i + 1) % 16 == 0: best.append(round(cur, 1))
        print(f"A: {len(recs)} measurements in {time.time()-t0:.0f} s, best by 16s: {best}", flush=True)
    else:
        seeds = [int(x) for x in sys.argv[3].split(",")]
        extra_db = sys.argv[4] if len(sys.argv) > 4 else None
        model = apply_layout(load_model("resnet18", None, seed=1), "auto", target, "auto")
        task = stem(model)
        print("resnet18 stem", task.key, task.space.size, task.flops, flush=True)
        shipped = default_corpus()
        arms = {"shipped": shipped}
        if extra_db:
            ext = copy.deepcopy(shipped)
            es = open_storage(extra_db)
            ct = stem(corpus_model(target, 0, "corpusnet", "off"))
            added = es.records(ct.key, ct.target_json, "s76-corpus-stem", kind="trial")
            hit = [t for t in ext.tasks_ if t.task_key == ct.key]
            assert hit, "corpusnet stem not in the shipped corpus"
            hit[0].records = hit[0].records + added
            print(f"extended: +{len(added)} records on {ct.key}", flush=True)
            arms["extended"] = ext
        for seed in seeds:
            for arm, corpus in arms.items():
                t0 = time.time()
                rid = f"s76-{arm}-s{seed}"
                prior = TransferPrior.from_storage(storage, task, seed, {}, corpus)
                first = prior.initial_configs(8)
                run(task, seed, 8, prior, first, run_id=rid)
                prior = TransferPrior.from_storage(storage, task, seed, {}, corpus)
                run(task, seed, 24, prior, run_id=rid)
                recs = storage.records(task.key, task.target_json, rid, kind="trial")
                g = [round(task.flops / r.cost / 1e9, 1) if r.ok else 0 for r in recs]
                print(f"B {arm} seed {seed}: first 8 {g[:8]} | best of 8 {max(g[:8])} | best of 24 {max(g)} "
                      f"({time.time()-t0:.0f} s)", flush=True)
            if "without" in sys.argv[5:]:
                rid = f"s76-without-s{seed}"
                t0 = time.time()
                run(task, seed, 80, None, run_id=rid)
                recs = storage.records(task.key, task.target_json, rid, kind="trial")
                best, cur = [], 0.0
                for i, r in enumerate(recs):
                    if r.ok: cur = max(cur, task.flops / r.cost / 1e9)
                    if (i + 1) % 8 == 0: best.append(round(cur, 1))
                print(f"B without seed {seed}: best by 8s {best} ({time.time()-t0:.0f} s)", flush=True)
