#!/bin/bash
# Stop 90, Intel `rocketlake` VM (2 vCPU), the code as shipped (HEAD at start): the 5x cell of issue 19 on this CPU
# with today's code: 200 with (shipped rocketlake corpus + within-run transfer) and 1,000 without (--no-transfer),
# seed 0, on empty databases, for ResNet-18 then VGG-16; then one interleaved latency set per model.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s90
export TVM_NUM_THREADS=2
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
one resnet18 200 0 with; sg
one resnet18 1000 0 without; sg
one vgg16 200 0 with; sg
one vgg16 1000 0 without; sg
M=$W/models
for m in resnet18 vgg16; do
  echo "== latency $m (8 rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $m --rounds 8 --no-progress --out $W/latency-$m \
    --lib 200-with=$M/lib-$m-200-with-s0.so@0 --lib 1000-without=$M/lib-$m-1000-without-s0.so@0 \
    --pairs 200-with/1000-without
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$m && cp $W/latency-$m/{report.md,results.json,latency.png} $HERE/latency-$m/
  sg
done
echo "== done $(date -u +%T)"
