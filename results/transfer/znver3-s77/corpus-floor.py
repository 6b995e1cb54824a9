"""Per conv task of the corpus models: records and best GFLOP/s (median of a record's costs) in stop 76's file and
in this stop's, split by run (the whole-model flow's, the task's own part-1b run).
Usage: python corpus-floor.py OLD.json.gz NEW.json.gz"""
import statistics
import sys

from tensortune.transfer.corpus import Corpus

old, new = Corpus.load(sys.argv[1]), Corpus.load(sys.argv[2])
before = {t.task_key: t for t in old.tasks_}


def best(recs):
    return max((r.flops / statistics.median(r.costs) / 1e9 for r in recs if r.error.value == 0 and r.costs), default=0.0)


print("| task (this file's name) | MFLOP | records before -> after | best before | best of its own part-1b run |")
print("|---|---|---|---|---|")
for t in new.tasks_:
    own = [r for r in t.records if r.run_id.startswith("corpus-conv-")]
    if not own:
        continue
    b = before[t.task_key]
    print(f"| {t.name[:52]} | {t.records[0].flops / 1e6:.1f} | {len(b.records)} -> {len(t.records)} | "
          f"{best(b.records):.1f} | {best(own):.1f} |")
