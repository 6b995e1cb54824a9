#!/bin/bash
# Stop 74, after run2.sh and the replay study, nothing else running: ResNet-18 seed 1, 200 without transfer (empty
# database), built; one 12-round latency set of the three seed-1 libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s74
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
one resnet18 200 1 without
echo "== latency 200-with/200-without/1000-without start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 12 --no-progress --out $W/latency-resnet18-200 \
  --lib 200-with-s1=$W/models/lib-resnet18-200-with-s1.so@1 --lib 200-without-s1=$W/models/lib-resnet18-200-without-s1.so@1 \
  --lib 1000-without-s1=$W/models/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s1/200-without-s1,200-with-s1/1000-without-s1,200-without-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18-200 && cp $W/latency-resnet18-200/{report.md,results.json,latency.png} latency-resnet18-200/
echo "== done $(date -u +%T)"
