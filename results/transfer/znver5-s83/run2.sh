#!/bin/bash
# Stop 83, after run.sh (pid $1) ended, nothing else running: ResNet-18 at seed 1 on this Zen 5 VM (stop 82 ran seed
# 0 only: 200 with level with 1,000 without, 1.025): 1,000 without, 200 with (the shipped corpus), each built, then
# one interleaved latency set of stop 82's seed-0 pair and these (--combine: over both seeds).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s83
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
one resnet18 1000 1 without
sg
one resnet18 200 1 with
sg
echo "== latency resnet18 (12 rounds) start $(date -u +%T)"
M=$W/models O=/work/runs/s82/models
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 12 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s0=$O/lib-resnet18-200-with-s82corpus-s0.so@0 --lib 1000-without-s0=$O/lib-resnet18-1000-without-s0.so@0 \
  --lib 200-with-s1=$M/lib-resnet18-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
sg
echo "== done $(date -u +%T)"
