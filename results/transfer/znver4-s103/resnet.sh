#!/bin/bash
# Stop 103, after grid.sh, alone: ResNet-18's 5x cell at seed 2 on this Zen 4 VM (seeds 0 and 1 were measured in
# stops 91 and 100), 200 with / 1,000 without, one interleaved latency set of the two libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s103
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
. ../bench-helpers.sh
M=$W/models
sg
one resnet18 200 2 with; one resnet18 1000 2 without
sg
echo "== latency resnet18 (10 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 10 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s2=$M/lib-resnet18-200-with-s2.so@2 --lib 1000-without-s2=$M/lib-resnet18-1000-without-s2.so@2 \
  --pairs 200-with-s2/1000-without-s2
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
echo "== done $(date -u +%T)"
