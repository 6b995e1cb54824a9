#!/bin/bash
# Stop 78, after run.sh, nothing else running: ResNet-18 seed 0 from empty databases, 1,000 without transfer and 200
# with this stop's corpus (its fc now on dense_fused.llvm, first rounds by work), each built; then one 24-round
# latency set of these two and stop 77's two seed-0 libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s78
export TVM_NUM_THREADS=2
NEW=$W/corpus/corpus-llvm-znver3.json.gz
. ../bench-helpers.sh
one resnet18 1000 0 without
one resnet18 200 0 with $NEW s78
echo "== latency (24 rounds) start $(date -u +%T)"
M=$W/models O=/work/runs/s77/models
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18 \
  --lib 200-with=$M/lib-resnet18-200-with-s78corpus-s0.so@0 --lib 1000-without=$M/lib-resnet18-1000-without-s0.so@0 \
  --lib s77-200-with=$O/lib-resnet18-200-with-s77corpus-s0.so@0 --lib s77-1000-without=$O/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,200-with/s77-1000-without,1000-without/s77-1000-without,200-with/s77-200-with
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-24 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18-24/
echo "== done $(date -u +%T)"
