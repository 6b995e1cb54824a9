#!/bin/bash
# Stop 77, after run.sh, nothing else running: VGG-16 seed 0 from empty databases, 1,000 without transfer and 200
# with this stop's corpus (part 1b's conv floor), each built; then one 24-round latency set of the two.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s77
export TVM_NUM_THREADS=2
NEW=$W/corpus/corpus-llvm-znver3.json.gz
. ../bench-helpers.sh
one vgg16 1000 0 without
one vgg16 200 0 with $NEW s77
N=vgg16-200-with-s77corpus-s0
echo "== latency (24 rounds) start $(date -u +%T)"
M=$W/models
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 24 --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s77corpus=$M/lib-$N.so@0 --lib 1000-without=$M/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with-s77corpus/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-24 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16-24/
echo "== done $(date -u +%T)"
