#!/bin/bash
# Stop 75: ResNet-18's 500-measurement cells at seed 1 (with transfer, the code's plan; without), from empty
# databases, built; then one 12-round latency set with stop 74's 1,000 without. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s75
S74=/work/runs/s74/models
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one resnet18 500 1 with
one resnet18 500 1 without
echo "== latency start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 12 --no-progress --out $W/latency-resnet18-500 \
  --lib 500-with-s1=$W/models/lib-resnet18-500-with-s1.so@1 --lib 500-without-s1=$W/models/lib-resnet18-500-without-s1.so@1 \
  --lib 1000-without-s1=$S74/lib-resnet18-1000-without-s1.so@1 \
  --pairs 500-with-s1/500-without-s1,500-with-s1/1000-without-s1,500-without-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18-500 && cp $W/latency-resnet18-500/{report.md,results.json,latency.png} latency-resnet18-500/
echo "== done $(date -u +%T)"
