#!/bin/bash
# Stop 80, nothing else running: ResNet-18 at 200 with and 1,000 without transfer (seed 0) with twins tuned as one
# task (flow.TWIN_GROUPS), then a 24-round latency set of these two beside stop 78's 200-with and 1,000-without
# libraries (twins tuned apart).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s80
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one resnet18 200 0 with
one resnet18 1000 0 without
M=$W/models O=/work/runs/s78/models
for m in resnet18; do
  echo "== latency $m (24 rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $m --rounds 24 --no-progress --out $W/latency-$m \
    --lib 200-with=$M/lib-$m-200-with-s0.so@0 --lib 1000-without=$M/lib-$m-1000-without-s0.so@0 \
    --lib 200-with-s78=$O/lib-$m-200-with-s78corpus-s0.so@0 --lib 1000-without-s78=$O/lib-$m-1000-without-s0.so@0 \
    --pairs 200-with/1000-without,200-with/1000-without-s78,200-with/200-with-s78,1000-without/1000-without-s78,200-with-s78/1000-without-s78
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$m-24 && cp $W/latency-$m/{report.md,results.json,latency.png} $HERE/latency-$m-24/
done
echo "== done $(date -u +%T)"
