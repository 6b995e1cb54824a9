#!/bin/bash
# Stop 75: run.sh's latency set extended to 24 rounds (the set resumes from its results.json), nothing else running.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s75
S74=/work/runs/s74/models
export TVM_NUM_THREADS=2
echo "== latency (24 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18-div \
  --lib 200-with-div-s1=$W/models/lib-resnet18-200-with-s1.so@1 --lib 200-with-top-s1=$S74/lib-resnet18-200-with-s1.so@1 \
  --lib 1000-without-s1=$S74/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-div-s1/200-with-top-s1,200-with-div-s1/1000-without-s1,200-with-top-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18-div-24 && cp $W/latency-resnet18-div/{report.md,results.json,latency.png} latency-resnet18-div-24/
echo "== done $(date -u +%T)"
