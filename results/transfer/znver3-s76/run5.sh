#!/bin/bash
# Stop 76: a second 24-round latency set of run3.sh's three ResNet-18 seed-1 libraries (after the clean-clone CI;
# nothing else running).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s76
export TVM_NUM_THREADS=2
echo "== latency (24 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18-b \
  --lib 200-with-s1=$W/models/lib-resnet18-200-with-s1.so@1 --lib 200-with-s70corpus-s1=$W/models/lib-resnet18-200-with-s70corpus-s1.so@1 \
  --lib 1000-without-s1=$W/models/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s1/1000-without-s1,200-with-s1/200-with-s70corpus-s1,200-with-s70corpus-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-24b && cp $W/latency-resnet18-b/{report.md,results.json,latency.png} $HERE/latency-resnet18-24b/
echo "== done $(date -u +%T)"
