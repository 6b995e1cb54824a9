"""Does a better-measured 11x11/4 stem source make held-out L1 transfer? (stop 51 probe, rocketlake)
1. the corpus db of stop 50 (copied): the stem op corpus:conv3x195-48k11s4 tuned on to TRIALS measurements (resumes
   its 64), as `tensortune corpus build` measures single layers (autotvm, seed 0, warm caches, batch 16);
2. a corpus file of the same tasks from that db; 3. L1 replayed on this CPU's table, sources L2/L7/L8 + that corpus,
   autotvm and chameleon with transfer, seeds 0-8, 120 measurements: measurements to 95% of the optimum."""
import shutil, sys, statistics
import numpy as np
from tensortune.cli.main import build_parser
from tensortune.cli.common import measurer_for
from tensortune.core.targets import device_name
from tensortune.models.corpus import corpus_ops
from tensortune.templates import default_template, make_task
from tensortune.tuners import recipes
from tensortune.tuners.loop import Budget, Tuner
from tensortune.storage import SQLiteStorage
from tensortune.transfer.corpus import Corpus, default_corpus_path
from tensortune.bench.groundtruth import load_table
from tensortune.bench.transfer import run_one
from tensortune.core.stats import trials_to_reach

TRIALS = int(sys.argv[1])
shipped = Corpus.load(default_corpus_path("rocketlake"))
shipped.install_task_files()
shutil.copy("/work/runs/s50/corpus/corpus.db", "stem.db")
args = build_parser().parse_args(["corpus", "build", "--db", "stem.db"])
args.cache = "warm"
target = {"kind": "llvm", "mcpu": "rocketlake", "num-cores": 2}
from tensortune.cli.common import parse_target_arg
target = parse_target_arg("llvm")
storage = SQLiteStorage("stem.db")
name, wl = [o for o in corpus_ops() if o[0] == "corpus:conv3x195-48k11s4"][0]
task = make_task(wl, default_template(wl.op, target["kind"]), target, name)
with measurer_for(args, target) as m:
    s = Tuner(task, recipes.create("autotvm", task.space, 0, task=task), m, storage, Budget(trials=TRIALS),
              tuner_name="autotvm", seed=0, batch_size=16, remeasure_best=False).run()
print(f"{name}: {s.trials} measurements, best {s.best_gflops:.1f} GFLOP/s ({s.resumed} resumed)", flush=True)
keys = [(k, t) for k, t, _ in shipped.tasks()]
corpus = Corpus.from_storage(storage, device_name(), keys=keys)
corpus.save(f"corpus-stem{TRIALS}.json.gz")
corpus = Corpus.load(f"corpus-stem{TRIALS}.json.gz")
corpus.install_task_files()
T = "/work/main/results/transfer/tables-rocketlake"
l1 = load_table("L1", T); srcs = [load_table(x, T) for x in ("L2", "L7", "L8")]
opt = float(l1.gflops.max())
for label, cp in (("shipped", shipped), (f"stem at {TRIALS}", corpus)):
    for recipe in ("autotvm", "chameleon"):
        reach = [trials_to_reach(run_one(l1, srcs, recipe, seed, 120, True, corpus=cp)["curve"], 0.95 * opt, rel_tol=1e-9) or float("inf")
                 for seed in range(9)]
        print(label, recipe, "with:", reach, "median", statistics.median(reach), flush=True)
