#!/bin/bash
# Stop 91, after run.sh, with the extended corpus copied into the package (so "with" = the shipped file): the rest
# of ResNet-18's grid at seed 0 (200 without, 500 with/without, 1,000 with) and one interleaved latency set of all
# six libraries. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s91
export TVM_NUM_THREADS=2
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
M=$W/models
one resnet18 200 0 without
one resnet18 500 0 with
one resnet18 500 0 without
one resnet18 1000 0 with
sg
echo "== latency resnet18 grid (10 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 10 --no-progress --out $W/latency-resnet18-grid \
  --lib 200-with=$M/lib-resnet18-200-with-s91corpus-s0.so@0 --lib 200-without=$M/lib-resnet18-200-without-s0.so@0 \
  --lib 500-with=$M/lib-resnet18-500-with-s0.so@0 --lib 500-without=$M/lib-resnet18-500-without-s0.so@0 \
  --lib 1000-with=$M/lib-resnet18-1000-with-s0.so@0 --lib 1000-without=$M/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,500-with/1000-without,200-with/200-without,500-with/500-without,1000-with/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-grid && cp $W/latency-resnet18-grid/{report.md,results.json,latency.png} $HERE/latency-resnet18-grid/
sg
echo "== done $(date -u +%T)"
