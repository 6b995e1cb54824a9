#!/bin/bash
# Stop 90, after the clean-clone CI: does the rocketlake corpus, extended as stops 76-82 extended the Zen 3 and Zen 5
# files (part 1b: stems to 256, every corpus-model conv to 128; CorpusMlp and the dense floor), close ResNet-18's
# 5x cell on this CPU? The shipped records are imported into a fresh database and `corpus build` resumes on it,
# writing the file to $W (not into the package). Then ResNet-18 200 with it at seed 0 and one interleaved latency set
# with run.sh's 200 with (shipped corpus) and 1,000 without. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s90
export TVM_NUM_THREADS=2
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
mkdir -p $W/corpus
OLD=/work/main/src/tensortune/transfer/data/corpus-llvm-rocketlake.json.gz NEW=$W/corpus/corpus-llvm-rocketlake.json.gz
if [ ! -f $NEW ]; then
  rm -f $W/corpus/corpus.db* $W/corpus/shipped.jsonl
  $P - "$OLD" "$W/corpus/shipped.jsonl" <<'PY'
import json, sys
from tensortune.transfer.corpus import Corpus
c = Corpus.load(sys.argv[1])
print(c.describe(), c.created, c.command)
with open(sys.argv[2], "w") as f:
    for t in c.tasks_:
        for r in t.records:
            f.write(json.dumps(r.to_json()) + "\n")
PY
  $P -m tensortune.cli.main import "$W/corpus/shipped.jsonl" --db $W/corpus/corpus.db
  echo "== corpus build (resume) start $(date -u +%T)"
  /usr/bin/time -p $P -m tensortune.cli.main corpus build --db $W/corpus/corpus.db --out $NEW --no-progress > $HERE/corpus-build.log 2>&1
  echo "   rc $?  end $(date -u +%T)"
  tail -4 $HERE/corpus-build.log
fi
sg
. ../bench-helpers.sh
one resnet18 200 0 with $NEW ext
sg
M=$W/models
echo "== latency resnet18 ext (12 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 12 --no-progress --out $W/latency-resnet18-ext \
  --lib 200-with-ext=$M/lib-resnet18-200-with-extcorpus-s0.so@0 --lib 200-with=$M/lib-resnet18-200-with-s0.so@0 \
  --lib 1000-without=$M/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with-ext/1000-without,200-with/1000-without,200-with-ext/200-with
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-ext && cp $W/latency-resnet18-ext/{report.md,results.json,latency.png} $HERE/latency-resnet18-ext/
sg
echo "== done $(date -u +%T)"
