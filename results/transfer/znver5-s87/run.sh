#!/bin/bash
# Stop 87. Whole-model effect of the incumbent probes (TRANSFER_PROBES = 8 after 2 model picks, greedy recipes with
# transfer): fresh 200 with at seeds 0-2 on VGG-16 and 0-1 on ResNet-18 with this code, then one interleaved latency
# set per model with the same seeds' 200 with of the code before (stops 82-86) and their 1,000 without.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s87
export TVM_NUM_THREADS=2
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
for s in 0 1 2; do one vgg16 200 $s with; sg; done
for s in 0 1; do one resnet18 200 $s with; sg; done
M=$W/models S82=/work/runs/s82/models S83=/work/runs/s83/models S85=/work/runs/s85/models S86=/work/runs/s86/models
echo "== latency vgg16 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16 \
  --lib probes-s0=$M/lib-vgg16-200-with-s0.so@0 --lib before-s0=$S85/lib-vgg16-200-with-s0.so@0 \
  --lib 1000-without-s0=$S82/lib-vgg16-1000-without-s0.so@0 \
  --lib probes-s1=$M/lib-vgg16-200-with-s1.so@1 --lib before-s1=$S86/lib-vgg16-200-with-s1.so@1 \
  --lib 1000-without-s1=$S83/lib-vgg16-1000-without-s1.so@1 \
  --lib probes-s2=$M/lib-vgg16-200-with-s2.so@2 --lib before-s2=$S86/lib-vgg16-200-with-s2.so@2 \
  --lib 1000-without-s2=$S86/lib-vgg16-1000-without-s2.so@2 \
  --pairs probes-s0/1000-without-s0,probes-s1/1000-without-s1,probes-s2/1000-without-s2 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== latency resnet18 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 8 --no-progress --out $W/latency-resnet18 \
  --lib probes-s0=$M/lib-resnet18-200-with-s0.so@0 --lib before-s0=$S82/lib-resnet18-200-with-s82corpus-s0.so@0 \
  --lib 1000-without-s0=$S82/lib-resnet18-1000-without-s0.so@0 \
  --lib probes-s1=$M/lib-resnet18-200-with-s1.so@1 --lib before-s1=$S83/lib-resnet18-200-with-s1.so@1 \
  --lib 1000-without-s1=$S83/lib-resnet18-1000-without-s1.so@1 \
  --pairs probes-s0/1000-without-s0,probes-s1/1000-without-s1 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
sg
echo "== done $(date -u +%T)"
