#!/bin/bash
# Stop 100, after run.sh, nothing else running: ResNet-18's 5x cell at seed 1 on this CPU (stop 91: seed 0 only,
# level 1.003): 200 with / 1,000 without from empty databases, then one interleaved set of 10 rounds.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s100
export TVM_NUM_THREADS=2
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
M=$W/models
one resnet18 200 1 with
one resnet18 1000 1 without
sg
echo "== latency resnet18 (10 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 10 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s1=$M/lib-resnet18-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
sg
echo "== done $(date -u +%T)"
