"""Measure a live bench's confirmed sets again in a fresh process (confirm_live as the bench calls it: one measurer
per layer, the same rounds), and write the results with these medians, beside the first confirmation's, to OUT
(results.json and report.md through the bench's own report writer)."""
import json, sys
from pathlib import Path
from tensortune.bench.groundtruth import groundtruth_measurer, groundtruth_task
from tensortune.bench.transfer import confirm_live, write_transfer_report

src, out, layers = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3].split(",")
d = json.load(open(src))
d.setdefault("first_confirmed", {})
out.mkdir(parents=True, exist_ok=True)
for name in layers:
    want = sorted(int(c) for c in d["confirmed"][name])
    task = groundtruth_task(name)
    with groundtruth_measurer(task) as m:
        new = confirm_live(task, m, want, d["config"]["confirm_rounds"])
    d["first_confirmed"][name] = d["confirmed"][name]
    d["confirmed"][name] = new
    d["optimum"][name] = max(new.values())
    old = d["first_confirmed"][name]
    moved = sorted(((new[c] / old[c] if old[c] else float("inf")), c) for c in new)
    print(name, "optimum first", round(max(old.values()), 1), "now", round(max(new.values()), 1),
          "new/first per config: min", [(round(r, 3), c) for r, c in moved[:3]], "max", [(round(r, 3), c) for r, c in moved[-5:]], flush=True)
    (out / "results.json").write_text(json.dumps(d))
write_transfer_report(d, out)
