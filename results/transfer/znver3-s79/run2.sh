#!/bin/bash
# Stop 79, after run.sh on the same VM, nothing else running: the rest of issue 19's grid at seed 0 (1,000 with and
# 200 without transfer), then one 24-round latency set per model of these two beside stop 78's 200-with and
# 1,000-without libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s79
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one vgg16 1000 0 with
one vgg16 200 0 without
one resnet18 1000 0 with
one resnet18 200 0 without
M=$W/models O=/work/runs/s78/models
for m in vgg16 resnet18; do
  echo "== latency $m set 2 (24 rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $m --rounds 24 --no-progress --out $W/latency2-$m \
    --lib 1000-with=$M/lib-$m-1000-with-s0.so@0 --lib 200-without=$M/lib-$m-200-without-s0.so@0 \
    --lib 200-with=$O/lib-$m-200-with-s78corpus-s0.so@0 --lib 1000-without=$O/lib-$m-1000-without-s0.so@0 \
    --pairs 1000-with/1000-without,200-with/200-without,200-with/1000-without,200-without/1000-without
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency2-$m-24 && cp $W/latency2-$m/{report.md,results.json,latency.png} $HERE/latency2-$m-24/
done
echo "== done $(date -u +%T)"
