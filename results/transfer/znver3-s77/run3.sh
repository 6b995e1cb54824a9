#!/bin/bash
# Stop 77, after run2.sh, nothing else running: ResNet-18 at a second seed (0) from empty databases, 1,000 without
# transfer and 200 with this stop's corpus, each built; then one 24-round latency set of the two.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s77
export TVM_NUM_THREADS=2
NEW=$W/corpus/corpus-llvm-znver3.json.gz
. ../bench-helpers.sh
one resnet18 1000 0 without
N=resnet18-200-with-s77corpus-s0
( cd $W/models && rm -f $N.db* lib-$N.*
  echo "== tune $N start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model resnet18 --trials 200 --seed 0 --corpus $NEW --db $N.db --out $N.json --no-progress > $N.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt; grep "transfer:" $N.txt | head -3
  $P -m tensortune.cli.main build --model resnet18 --seed 0 --corpus $NEW --db $N.db --out lib-$N.so > lib-$N.txt 2>&1
  echo "   build rc $?  end $(date -u +%T)"
  cp $N.json $N.txt lib-$N.json lib-$N.txt $HERE/models/ )
echo "== latency (24 rounds) start $(date -u +%T)"
M=$W/models
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18-s0 \
  --lib 200-with-s77corpus-s0=$M/lib-$N.so@0 --lib 1000-without-s0=$M/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with-s77corpus-s0/1000-without-s0
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-s0-24 && cp $W/latency-resnet18-s0/{report.md,results.json,latency.png} $HERE/latency-resnet18-s0-24/
echo "== done $(date -u +%T)"
