#!/bin/bash
# Stop 86. VGG-16's 5x cell at more seeds with the current code (no default behaviour changed since stop 82):
# fresh 200 with at seeds 1 and 2, a fresh 1,000 without at seed 2, then one interleaved latency set with stop 85's
# fresh 200 with (seed 0), stop 82's 200 with and 1,000 without (seed 0), stop 83's 200 with and 1,000 without
# (seed 1), and this stop's three.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s86
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
one vgg16 200 2 with
sg
one vgg16 1000 2 without
sg
one vgg16 200 1 with
sg
M=$W/models S82=/work/runs/s82/models S83=/work/runs/s83/models S85=/work/runs/s85/models
echo "== latency vgg16 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s0=$S85/lib-vgg16-200-with-s0.so@0 --lib 200-with-s0-s82=$S82/lib-vgg16-200-with-s82corpus-s0.so@0 \
  --lib 1000-without-s0=$S82/lib-vgg16-1000-without-s0.so@0 \
  --lib 200-with-s1=$M/lib-vgg16-200-with-s1.so@1 --lib 200-with-s1-s83=$S83/lib-vgg16-200-with-s1.so@1 \
  --lib 1000-without-s1=$S83/lib-vgg16-1000-without-s1.so@1 \
  --lib 200-with-s2=$M/lib-vgg16-200-with-s2.so@2 --lib 1000-without-s2=$M/lib-vgg16-1000-without-s2.so@2 \
  --pairs 200-with-s0/1000-without-s0,200-with-s0-s82/1000-without-s0,200-with-s1/1000-without-s1,200-with-s1-s83/1000-without-s1,200-with-s2/1000-without-s2
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== done $(date -u +%T)"
