#!/bin/bash
# Stop 78, the 2-vCPU Zen 3 VM (AMD EPYC, family 25 model 1, LLVM `znver3`), nothing else running, one step after
# another:
# 1. corpus build with CorpusMlp and part 1b's dense floor (CORPUS_DENSE_TRIALS = 128), resumed on a copy of stop 77's
#    build database, so only the dense layers (now dense_fused.llvm's) are measured;
# 2. VGG-16 seed 0 from empty databases: 1,000 without transfer; 200 with this corpus; each built;
# 3. one 24-round latency set of these two and stop 77's two VGG-16 libraries (dense layers in MetaSchedule's space).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s78
export TVM_NUM_THREADS=2
mkdir -p $W/corpus $W/models
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
NEW=$W/corpus/corpus-llvm-znver3.json.gz
[ -f $W/corpus/corpus.db ] || cp /work/runs/s77/corpus/corpus.db $W/corpus/corpus.db
if [ ! -f $NEW ]; then
  echo "== corpus build (resume: CorpusMlp, dense floor) start $(date -u +%T)"
  ( cd $W/corpus && /usr/bin/time -p $P -m tensortune.cli.main corpus build --db corpus.db --out $NEW --no-progress )
  echo "   rc $?  end $(date -u +%T)"
fi
. ../bench-helpers.sh
one vgg16 1000 0 without
one vgg16 200 0 with $NEW s78
echo "== latency (24 rounds) start $(date -u +%T)"
M=$W/models O=/work/runs/s77/models
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 24 --no-progress --out $W/latency-vgg16 \
  --lib 200-with=$M/lib-vgg16-200-with-s78corpus-s0.so@0 --lib 1000-without=$M/lib-vgg16-1000-without-s0.so@0 \
  --lib s77-200-with=$O/lib-vgg16-200-with-s77corpus-s0.so@0 --lib s77-1000-without=$O/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,200-with/s77-1000-without,1000-without/s77-1000-without,200-with/s77-200-with
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-24 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16-24/
echo "== done $(date -u +%T)"
