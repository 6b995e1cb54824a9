"""Would stop 66's trust cut keep L4's source? Each source's own model (as PriorCostModel.source_trust fits it:
XGBoost, rank loss, the source's rows alone) scored against L4's confirmed configs (the runs' best configs, five-pass
medians, stop 96) as if they were the task's own outcomes: over all pairs, and over the pairs that involve the 10
fastest; and where its ranking puts the fastest configs."""
import json
import numpy as np
from tensortune.bench.transfer import combine_passes
from tensortune.bench.groundtruth import groundtruth_task, load_table
from tensortune.transfer import TransferPrior
from tensortune.transfer.corpus import default_corpus
from tensortune.transfer.prior import pairwise_accuracy, TRUST_TAU
from tensortune.cost_models.registry import make_cost_model
d = json.load(open("/work/main/results/transfer/znver5-s96/l46-live/results.json"))
c = combine_passes([p["medians"] for p in d["confirmed_passes"]["L4"]])
task = groundtruth_task("L4")
prior = TransferPrior.from_tables(task, [load_table(x) for x in ["L1", "L2", "L7", "L8"]], 0,
                                  corpus=default_corpus("znver5"))
print("sources", [s.name for s in prior.sources], "similarity", [round(v, 3) for v in prior.similarity])
ids = sorted(c, key=lambda k: -c[k])
y = np.array([c[k] for k in ids])
x = prior.model_features.encode_indices(np.array([task.space.config(int(k)).indices for k in ids]))
for src in prior.sources:
    m = make_cost_model("xgb", loss="rank", seed=0)
    m.fit_groups([src.x], [src.y], [1.0])
    p = m.predict(x)
    acc = pairwise_accuracy(p, y)
    top = 10
    k = (y[:, None] - y[None, :]) > 0
    mask = np.zeros_like(k); mask[:top, :] = True; mask[:, :top] = True
    dd = (p[:, None] - p[None, :])[k & mask]
    acc_top = float(np.mean(np.where(dd > 0, 1.0, np.where(dd == 0, 0.5, 0.0))))
    rank_of = np.argsort(np.argsort(-p))  # the source model's rank of each confirmed config (0 = its first)
    print(f"{src.name[:70]}: rows {len(src.y)}; all pairs acc {acc:.3f} (tau {2*acc-1:.3f}, trust "
          f"{np.clip((2*acc-1)/TRUST_TAU,0,1):.2f}); pairs with the 10 fastest acc {acc_top:.3f}; "
          f"the 6 fastest ranked {sorted(rank_of[:6].tolist())} of {len(y)}; its top 5 are confirmed at "
          f"{[round(float(y[i]/y[0]),3) for i in np.argsort(-p)[:5]]}")
