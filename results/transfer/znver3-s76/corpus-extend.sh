#!/bin/bash
# Stop 76: extend the shipped znver3 corpus (stop 70's build, 3,522 records) with part 1b of `corpus build` (the
# corpus models' stems measured on their own to 256 records each) without remeasuring the rest: the shipped
# records go into a fresh database as JSON lines (`tensortune import`), and `corpus build` on that database
# resumes: its whole-model and single-layer runs find their records and measure nothing, part 1b measures.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s76/corpus
export TVM_NUM_THREADS=2
mkdir -p $W && rm -f $W/corpus.db* $W/shipped.jsonl
$P - "$W/shipped.jsonl" <<'PY'
import json, sys
from tensortune.transfer.corpus import default_corpus
c = default_corpus("znver3")
print(c.describe(), c.created, c.command)
with open(sys.argv[1], "w") as f:
    for t in c.tasks_:
        for r in t.records:
            f.write(json.dumps(r.to_json()) + "\n")
PY
$P -m tensortune.cli.main import "$W/shipped.jsonl" --db $W/corpus.db
echo "== corpus build (resume) start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main corpus build --db $W/corpus.db --out $W/corpus-llvm-znver3.json.gz --no-progress
echo "   rc $?  end $(date -u +%T)"
