#!/bin/bash
# Stop 80, after run.sh (its tuning ran in a slow host phase: sgemm 122 and 97 GFLOP/s; its latency set spread
# 78-130%): the same four ResNet-18 libraries timed again, 24 rounds, nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s80
export TVM_NUM_THREADS=2
M=$W/models O=/work/runs/s78/models m=resnet18
echo "== sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') GFLOP/s"
echo "== latency $m set 2 (24 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model $m --rounds 24 --no-progress --out $W/latency2-$m \
  --lib 200-with=$M/lib-$m-200-with-s0.so@0 --lib 1000-without=$M/lib-$m-1000-without-s0.so@0 \
  --lib 200-with-s78=$O/lib-$m-200-with-s78corpus-s0.so@0 --lib 1000-without-s78=$O/lib-$m-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,200-with/1000-without-s78,200-with/200-with-s78,1000-without/1000-without-s78,200-with-s78/1000-without-s78
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency2-$m-24 && cp $W/latency2-$m/{report.md,results.json,latency.png} $HERE/latency2-$m-24/
echo "== sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') GFLOP/s"
echo "== done $(date -u +%T)"
