#!/bin/bash
# Stop 91, a Zen 4 VM with AVX-512 (AMD EPYC, family 25 model 17, LLVM `znver4`), nothing else running.
# The shipped znver4 corpus is stop 36's (1,568 records of 39 tasks): it predates the Winograd template (stop 37),
# part 1b of `corpus build` (stems to 256, every corpus-model conv to 128, stops 76-77), CorpusMlp and the dense
# template/floor (stop 78), so on this CPU a whole-model "with" run has no prior for its Winograd convs or dense
# layers. This script:
#   1. extends the znver4 corpus as stops 76 (Zen 3) and 82 (Zen 5) did: the shipped records imported into a fresh
#      database, then `corpus build` on it (it resumes: only what today's build asks for and the file lacks is
#      measured), written to $W (copied into the package afterwards, by hand, if it is kept);
#   2. ResNet-18 at seed 0: 200 with the extended corpus, 200 with stop 36's (the shipped file), 1,000 without,
#      then one interleaved latency set of the three libraries;
#   3. VGG-16 at seed 0: 200 with the extended corpus, 1,000 without, a latency set.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s91
export TVM_NUM_THREADS=2
mkdir -p $W/corpus
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
OLD=$W/corpus-s36.json.gz NEW=$W/corpus/corpus-llvm-znver4.json.gz
[ -f $OLD ] || cp /work/main/src/tensortune/transfer/data/corpus-llvm-znver4.json.gz $OLD
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
M=$W/models
one resnet18 200 0 with $NEW s91
one resnet18 200 0 with $OLD s36
one resnet18 1000 0 without
sg
echo "== latency resnet18 (12 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 12 --no-progress --out $W/latency-resnet18 \
  --lib 200-with=$M/lib-resnet18-200-with-s91corpus-s0.so@0 --lib 200-with-s36corpus=$M/lib-resnet18-200-with-s36corpus-s0.so@0 \
  --lib 1000-without=$M/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,200-with-s36corpus/1000-without,200-with/200-with-s36corpus
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
sg
one vgg16 200 0 with $NEW s91
one vgg16 1000 0 without
sg
echo "== latency vgg16 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16 \
  --lib 200-with=$M/lib-vgg16-200-with-s91corpus-s0.so@0 --lib 1000-without=$M/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== done $(date -u +%T)"
