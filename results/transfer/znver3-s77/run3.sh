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
one resnet18 200 0 with $NEW s77
N=resnet18-200-with-s77corpus-s0
echo "== latency (24 rounds) start $(date -u +%T)"
M=$W/models
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18-s0 \
  --lib 200-with-s77corpus-s0=$M/lib-$N.so@0 --lib 1000-without-s0=$M/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with-s77corpus-s0/1000-without-s0
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-s0-24 && cp $W/latency-resnet18-s0/{report.md,results.json,latency.png} $HERE/latency-resnet18-s0-24/
echo "== done $(date -u +%T)"
