#!/bin/bash
# Stop 80, after run2.sh, nothing else running: the goal pair at seed 1 with this stop's code (twins tuned as one
# task), then one 24-round latency set of seeds 0 and 1's 200-with and 1,000-without libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s80
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one resnet18 200 1 with
one resnet18 1000 1 without
M=$W/models m=resnet18
echo "== sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') GFLOP/s"
echo "== latency $m set 3 (24 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model $m --rounds 24 --no-progress --out $W/latency3-$m \
  --lib 200-with-s0=$M/lib-$m-200-with-s0.so@0 --lib 1000-without-s0=$M/lib-$m-1000-without-s0.so@0 \
  --lib 200-with-s1=$M/lib-$m-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-$m-1000-without-s1.so@1 \
  --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1,200-with-s0/1000-without-s1,200-with-s1/1000-without-s0
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency3-$m-24 && cp $W/latency3-$m/{report.md,results.json,latency.png} $HERE/latency3-$m-24/
echo "== sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') GFLOP/s"
echo "== done $(date -u +%T)"
