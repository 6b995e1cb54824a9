"""Stop 94: leave-one-layer-out on vta-sim (the analytical VTA model), ResNet-18's 11 convs, autotvm: no transfer,
transfer as shipped (the stop-93 rule: a discredited prior explores at random from 24 to 64 outcomes), and transfer
with that rule off. Every run goes through the CLI (`tensortune tune --target vta-sim ...`) as a user's would.
usage: vta.py WORKDIR SEEDS [LAYERS]        (rerun resumes: results in WORKDIR/results.json)
Sources: each layer tuned once, autotvm --no-transfer, 200 measurements, seed 100, exported to JSON lines; a held-out
layer's database is the other ten layers' records imported (a fresh copy per run). Reach: the first measurement whose
throughput is at least 95% of the best any run of the layer measured (the source run included)."""
import json, re, sqlite3, statistics, subprocess, sys
from pathlib import Path

work = Path(sys.argv[1]); work.mkdir(parents=True, exist_ok=True)
seeds = [int(s) for s in sys.argv[2].split(",")]
layers = [int(x) for x in sys.argv[3].split(",")] if len(sys.argv) > 3 else list(range(1, 12))
res_p = work / "results.json"
res = json.loads(res_p.read_text()) if res_p.exists() else {}


def run(argv, explore=True):
    """One CLI command in its own process (each closes its database, as a user's would); ``explore=False`` turns the
    stop-93 rule off in that process."""
    patch = "" if explore else "import tensortune.tuners.recipes as r; r.TRANSFER_EXPLORE_AFTER = 10**9; "
    code = f"import sys; {patch}from tensortune.cli.main import main; sys.exit(main({argv!r}))"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if p.returncode:
        raise SystemExit(f"{argv}: exit {p.returncode}\n{(p.stdout + p.stderr)[-2000:]}")
    return p.stdout + p.stderr


def fresh(db):
    for suffix in ("", "-wal", "-shm", "-lease", "-journal"):
        Path(str(db) + suffix).unlink(missing_ok=True)


def tune(db, layer, seed, trials, *extra, explore=True):
    return run(["tune", "--target", "vta-sim", "--layer", f"resnet18:{layer}", "--tuner", "autotvm", "--trials",
                str(trials), "--no-progress", "--db", str(db), "--seed", str(seed), *extra], explore)


def trials_of(db, layer):
    out = db.with_suffix(".jsonl")
    run(["export", "--db", str(db), "--out", str(out), "--force"])
    got = []
    for line in out.read_text().splitlines():
        r = json.loads(line)
        if r["task_name"] == f"resnet18:{layer}" and r["kind"] == "trial":
            got.append(r["flops"] / statistics.mean(r["costs"]) / 1e9 if r["costs"] and r["error"] in ("NONE", "", None) else 0.0)
    return got


src = work / "sources"; src.mkdir(exist_ok=True)
for l in range(1, 12):
    if not (src / f"{l}.jsonl").exists():
        db = src / f"{l}.db"
        fresh(db)
        tune(db, l, 100, 200, "--no-transfer")
        trials_of(db, l)  # writes {l}.jsonl
        print("source", l, flush=True)

for h in layers:
    pool = work / f"pool-{h}.db"
    if not (work / f"pool-{h}.done").exists():
        fresh(pool)
        for l in range(1, 12):
            if l != h:
                run(["import", "--db", str(pool), str(src / f"{l}.jsonl")])
        (work / f"pool-{h}.done").touch()
    for seed in seeds:
        for mode in ("none", "on", "noexplore"):
            key = f"{h}/{seed}/{mode}"
            if key in res:
                continue
            db = work / "run.db"; fresh(db)
            a, b = sqlite3.connect(pool), sqlite3.connect(db)
            a.backup(b)  # a consistent copy, the WAL included
            a.close(); b.close()
            text = tune(db, h, seed, 300, *(["--no-transfer"] if mode == "none" else []), explore=mode != "noexplore")
            m = re.search(r"so\s+(\d+)\s+configs\s+were\s+measured\s+at\s+random", text)
            learned = re.search(r"transfer: [^\n]*", text)
            res[key] = {"curve_gflops": [round(x, 4) for x in trials_of(db, h)],
                        "explored": int(m.group(1)) if m else 0, "transfer_line": learned.group(0) if learned else ""}
            res_p.write_text(json.dumps(res))
            print(key, "explored", res[key]["explored"], flush=True)
