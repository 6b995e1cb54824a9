#!/bin/bash
# Stop 82, the first Zen 5 VM since stop 49 (AMD EPYC, family 26 model 2, LLVM `znver5`), nothing else running.
# The shipped znver5 corpus is stop 48's (2,946 records of 54 tasks): it predates part 1b of `corpus build` (stems
# to 256, every corpus-model conv to 128, stop 76-77), CorpusMlp and the dense floor (stop 78), and holds the
# three stem-like single layers at 64 records, not 256. This script:
#   1. ResNet-18 at seed 0: 1,000 without transfer, 200 with stop 48's corpus (the shipped file, copied aside);
#   2. extends the znver5 corpus as stop 76 did on Zen 3: the shipped records imported into a fresh database,
#      then `corpus build` on it (it resumes: only what the current build asks for and the file lacks is measured);
#   3. ResNet-18 200 with the extended corpus, then one interleaved latency set of the three libraries;
#   4. VGG-16 at seed 0: 1,000 without, 200 with the extended corpus, and a latency set.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s82
export TVM_NUM_THREADS=2
mkdir -p $W/corpus
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"; }
sg
OLD=$W/corpus-s48.json.gz NEW=$W/corpus/corpus-llvm-znver5.json.gz
[ -f $OLD ] || cp /work/main/src/tensortune/transfer/data/corpus-llvm-znver5.json.gz $OLD
. ../bench-helpers.sh
one resnet18 1000 0 without
one resnet18 200 0 with $OLD s48
sg
# 2. the corpus extension
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
one resnet18 200 0 with $NEW s82
sg
echo "== latency resnet18 (16 rounds) start $(date -u +%T)"
M=$W/models
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 16 --no-progress --out $W/latency-resnet18 \
  --lib 200-with=$M/lib-resnet18-200-with-s82corpus-s0.so@0 --lib 200-with-s48corpus=$M/lib-resnet18-200-with-s48corpus-s0.so@0 \
  --lib 1000-without=$M/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,200-with-s48corpus/1000-without,200-with/200-with-s48corpus
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
sg
one vgg16 1000 0 without
one vgg16 200 0 with $NEW s82
sg
echo "== latency vgg16 (12 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 12 --no-progress --out $W/latency-vgg16 \
  --lib 200-with=$M/lib-vgg16-200-with-s82corpus-s0.so@0 --lib 1000-without=$M/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== done $(date -u +%T)"
