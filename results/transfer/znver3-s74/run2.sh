#!/bin/bash
# Stop 74, after run.sh (stopped once the 5x cell's latency set was done, 13:30): the seed-1 5x set extended from 12
# to 24 rounds (`bench latency` resumes a set), nothing else running.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s74
export TVM_NUM_THREADS=2
echo "== latency 5x extend to 24 start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18-5x \
  --lib 200-with-s1=$W/models/lib-resnet18-200-with-s1.so@1 --lib 1000-without-s1=$W/models/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18-5x-24 && cp $W/latency-resnet18-5x/{report.md,results.json,latency.png} latency-resnet18-5x-24/
