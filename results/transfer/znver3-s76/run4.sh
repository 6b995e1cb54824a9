#!/bin/bash
# Stop 76: VGG-16 seed 0 from empty databases: 1,000 without transfer and 200 with (the znver3 corpus with part
# 1b's stems), built; then one 24-round latency set of the two. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s76
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one vgg16 1000 0 without
one vgg16 200 0 with
echo "== latency (24 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 24 --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s0=$W/models/lib-vgg16-200-with-s0.so@0 --lib 1000-without-s0=$W/models/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with-s0/1000-without-s0
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-24 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16-24/
echo "== done $(date -u +%T)"
