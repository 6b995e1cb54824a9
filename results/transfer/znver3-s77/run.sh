#!/bin/bash
# Stop 77, the 2-vCPU Zen 3 VM (AMD EPYC, family 25 model 1, LLVM `znver3`), nothing else running, one step after
# another:
# 1. corpus build part 1b with the conv floor (CORPUS_CONV_TRIALS = 128): resumed on stop 76's build database (the
#    shipped file's records plus the MetaSchedule-space tasks' records), so only the floor is measured;
# 2. ResNet-18 seed 1 from empty databases: 1,000 without transfer; 200 with stop 76's corpus; 200 with this one;
#    each built;
# 3. one 24-round latency set of the three libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s77
export TVM_NUM_THREADS=2
mkdir -p $W/corpus $W/models
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
OLD=$W/corpus/corpus-s76.json.gz NEW=$W/corpus/corpus-llvm-znver3.json.gz
[ -f $OLD ] || cp /work/runs/s76/corpus/corpus-llvm-znver3.json.gz $OLD
cmp $OLD /work/main/src/tensortune/transfer/data/corpus-llvm-znver3.json.gz && echo "s76 file = shipped file"
[ -f $W/corpus/corpus.db ] || cp /work/runs/s76/corpus/corpus.db $W/corpus/corpus.db
# (run-corpus.log: the first start, which built the corpus; its ResNet-18 step was stopped after 2.5 min because a
# mis-chained run2.sh ran beside it for a few seconds, and this script restarted with the corpus step skipped)
if [ ! -f $NEW ]; then
  echo "== corpus build (resume, part 1b floor) start $(date -u +%T)"
  ( cd $W/corpus && /usr/bin/time -p $P -m tensortune.cli.main corpus build --db corpus.db --out $NEW --no-progress )
  echo "   rc $?  end $(date -u +%T)"
fi
. ../bench-helpers.sh
one resnet18 1000 1 without
for C in s76 s77; do
  F=$OLD; [ $C = s77 ] && F=$NEW
  one resnet18 200 1 with $F $C
done
echo "== latency (24 rounds) start $(date -u +%T)"
M=$W/models
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s77corpus=$M/lib-resnet18-200-with-s77corpus-s1.so@1 --lib 200-with-s76corpus=$M/lib-resnet18-200-with-s76corpus-s1.so@1 \
  --lib 1000-without=$M/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s77corpus/1000-without,200-with-s77corpus/200-with-s76corpus,200-with-s76corpus/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-24 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18-24/
echo "== done $(date -u +%T)"
