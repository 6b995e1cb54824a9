"""Diagnostic (no code change): held-out L4 live, autotvm with transfer, seeds 0-2, 300 measurements, twice:
as shipped (logging each refit's trust), and with the trust cut also scored on the pairs that involve the task's best
own outcomes (top max(5, n/10)): trust = clip(min(tau_all, tau_top) / TRUST_TAU, 0, 1). Then the union of these runs'
top 8 and stop 95's L4 runs' top 8 confirmed in 3 passes, and every run credited against each pass and the median."""
import json, statistics, sys, time
from pathlib import Path
import numpy as np
import tensortune.transfer.prior as P
from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task, load_table
from tensortune.bench.transfer import combine_passes, confirm_live, live_reach, run_live
from tensortune.transfer.corpus import default_corpus

OUT = Path(sys.argv[1]); OUT.mkdir(parents=True, exist_ok=True)
MODE = {"top": False, "log": []}
orig_trust = P.PriorCostModel.source_trust

def top_acc(pred, y, k):
    order = np.argsort(-y, kind="stable"); top = np.zeros(len(y), bool); top[order[:k]] = True
    dy = y[:, None] - y[None, :]; dp = pred[:, None] - pred[None, :]
    m = (dy > 0) & (top[:, None] | top[None, :])
    if not m.any(): return 0.5
    return float(np.mean(np.where(dp[m] > 0, 1.0, np.where(dp[m] == 0, 0.5, 0.0))))

def trust(self, x, y):
    out = orig_trust(self, x, y)
    y = np.asarray(y, dtype=np.float64)
    if len(y) < P.TRUST_MIN_OWN or len(np.unique(y)) < 2:
        return out
    x = np.asarray(x)
    k = max(5, len(y) // 10)
    rec = {"n": len(y), "all": list(out)}
    tops = []
    for j, src in enumerate(self.prior.sources):
        key = (P._source_key(src), repr(getattr(self._blank, "params", type(self._blank).__name__)))
        model = self.prior.source_models.get(key)
        if model is None:
            tops.append(None); continue
        acc = top_acc(model.predict(x), y, k)
        tt = float(np.clip((2 * acc - 1) / P.TRUST_TAU, 0, 1)); tops.append(tt)
        if MODE["top"]:
            out[j] = min(out[j], tt)
    rec["top"] = tops
    MODE["log"].append(rec)
    return out

P.PriorCostModel.source_trust = trust
path = OUT / "l4top.json"
doc = json.loads(path.read_text()) if path.exists() else {"runs": [], "passes": []}
tables = [load_table(x) for x in ["L1", "L2", "L7", "L8"]]
corpus = default_corpus("znver5")
for seed in (0, 1, 2):
    for variant in ("shipped", "top"):
        if any(r["seed"] == seed and r["variant"] == variant for r in doc["runs"]):
            continue
        MODE["top"] = variant == "top"; MODE["log"] = []
        t0 = time.time()
        r = run_live("L4", tables, "autotvm", seed, 300, True, corpus=corpus, keep_top=8)
        log = MODE["log"]
        doc["runs"].append({"seed": seed, "variant": variant, "trust_log": log[::4], **r})
        path.write_text(json.dumps(doc))
        cut = next((e["n"] for e in log if min(e["all"] if variant == "shipped" else [min(a, b) for a, b in zip(e["all"], e["top"])]) < 0.25), None)
        print(f"{time.strftime('%H:%M:%S')} seed {seed} {variant}: best in-run {r['curve'][-1]:.1f}, {time.time()-t0:.0f} s; "
              f"trust all/top at n=" + ", ".join(f"{e['n']}: {e['all'][0]:.2f}/{e['top'][0]:.2f}" for e in log[:12:2]) +
              f"; first n with trust < 0.25: {cut}", flush=True)
s95 = json.load(open("/work/main/results/transfer/znver5-s96/l46-live-10/results.json"))
old = [r for r in s95["runs"] if r["layer"] == "L4" and r["recipe"] == "autotvm"]
want = sorted({int(c) for r in [*old, *doc["runs"]] for c, _, _ in r["top"]})
task = groundtruth_task("L4")
while len(doc["passes"]) < 3:
    started = time.strftime("%H:%M:%S")
    with groundtruth_measurer(task) as m:
        doc["passes"].append({"started": started, "medians": confirm_live(task, m, want, 7)})
    path.write_text(json.dumps(doc))
    print(f"pass {len(doc['passes'])} ({started}): {len(want)} configs, optimum {max(doc['passes'][-1]['medians'].values()):.1f}", flush=True)
meds = [p["medians"] for p in doc["passes"]]
groups = {"s95 without": [r for r in old if not r["transfer"]], "s95 with": [r for r in old if r["transfer"]],
          "with, shipped (now)": [r for r in doc["runs"] if r["variant"] == "shipped"],
          "with, top-pair trust": [r for r in doc["runs"] if r["variant"] == "top"]}
for label, conf in [*((f"pass {i + 1}", m) for i, m in enumerate(meds)), ("median of 3 passes", combine_passes(meds))]:
    opt = max(conf.values())
    cells = []
    for g, runs in groups.items():
        hits = [live_reach(r, conf, 0.95 * opt)[0] for r in runs]
        med = statistics.median([h if h is not None else float("inf") for h in hits])
        cells.append(f"{g}: {', '.join('-' if h is None else str(h) for h in hits)} (median {med})")
    print(f"{label} (optimum {opt:.1f}): " + "; ".join(cells), flush=True)
