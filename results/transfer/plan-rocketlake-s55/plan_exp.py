"""L6 live, autotvm with transfer (knobs+corpus, tables L1,L2,L7,L8): plan size variants, seeds interleaved."""
import json, sys, tempfile, time
from pathlib import Path
import numpy as np
from tensortune.bench.groundtruth import load_table, groundtruth_task, groundtruth_measurer
from tensortune.bench.transfer import confirm_live
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
from tensortune.storage import SQLiteStorage
from tensortune.tuners import Budget, Tuner, create
import tensortune.tuners.recipes as R

variants = sys.argv[1].split(",")
seeds = [int(s) for s in sys.argv[2].split(",")]
trials = int(sys.argv[3]); out = Path(sys.argv[4])
tabs = [load_table(n, '/work/main/results/transfer/tables-rocketlake') for n in ['L1', 'L2', 'L7', 'L8']]
corpus = default_corpus('rocketlake')
task = groundtruth_task('L6')
res = json.loads(out.read_text()) if out.exists() else {"runs": []}
done = {(r["variant"], r["seed"]) for r in res["runs"]}
with groundtruth_measurer(task) as m:
    for seed in seeds:
        for v in variants:
            if (v, seed) in done:
                continue
            prior = TransferPrior.from_tables(task, tabs, seed, corpus=corpus)
            if v == "p64":
                strat = create("autotvm", task.space, seed, transfer=prior, task=task)
            elif v == "p16":
                strat = create("autotvm", task.space, seed, transfer=prior, task=task, plan_size=16)
            elif v == "p16f64":
                orig = prior.cost_model
                prior.cost_model = lambda base, plan: orig(base, 64)
                strat = create("autotvm", task.space, seed, transfer=prior, task=task, plan_size=16)
            elif v == "none":
                strat = create("autotvm", task.space, seed, task=task); prior = None
            t0 = time.perf_counter()
            with tempfile.TemporaryDirectory() as d:
                st = SQLiteStorage(Path(d) / "r.db")
                s = Tuner(task, strat, m, st, Budget(trials=trials), tuner_name="autotvm", seed=seed,
                          remeasure_best=False, initial_configs=prior.initial_configs() if prior else None).run()
                recs = st.records(task.key, task.target_json, s.run_id, kind="trial")
                seq = [[r.config_index, (task.flops / r.cost / 1e9) if r.ok and r.cost > 0 else 0.0] for r in recs]
                st.close()
            res["runs"].append({"variant": v, "seed": seed, "seq": seq, "wall_s": time.perf_counter() - t0})
            out.write_text(json.dumps(res))
            best = max(seq, key=lambda x: x[1])
            first = next((i + 1 for i, x in enumerate(seq) if x[0] in (4905, 4904)), None)
            print(f"{v:7s} seed {seed}: best {best[1]:.1f} (cfg {best[0]}), first 4905/4904 at {first}", flush=True)
    want = sorted({c for r in res["runs"] for c, g in sorted(r["seq"], key=lambda x: -x[1])[:3]} | {4905, 4904})
    res["confirmed"] = confirm_live(task, m, want, 7)
    out.write_text(json.dumps(res))
print(sorted(res["confirmed"].items(), key=lambda x: -x[1])[:8])
