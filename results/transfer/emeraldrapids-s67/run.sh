#!/bin/bash
# Stop 67, the same 2-vCPU Intel Xeon VM as stops 63-66 (family 6 model 207, LLVM `emeraldrapids`), code b492b99
# (stop 66's code, corpus and tables). Nothing else running. Stops 63-66's libraries are still on this machine
# (/work/runs/s63 ... s66).
#  1. VGG-16 at 1,000 without transfer, seed 0 (the 5x goal's pair of stop 64's 200 with), then one 8-round
#     timing.py set of VGG-16 200 with, 200 without and 1,000 without with ONNX Runtime;
#  2. if it is before 16:25 UTC: ResNet-18 at 1,000 with transfer, seed 0 (the grid's missing cell on this CPU), then
#     one 10-round timing.py set of the seed-0 ResNet-18 libraries (200/500/1,000 with and without) with ONNX Runtime.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s67
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
one vgg16 1000 0 without
echo "== timing vgg16 start $(date -u +%T)"
(cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py vgg16 8 \
  200-with-s0=/work/runs/s64/models/lib-vgg16-200-with-s0.so@0 \
  200-without-s0=/work/runs/s64/models/lib-vgg16-200-without-s0.so@0 \
  1000-without-s0=lib-vgg16-1000-without-s0.so@0 \
  2>&1 | grep -v "Scope Loaded") > models/timing-vgg16.log
echo "   end $(date -u +%T)"; tail -4 models/timing-vgg16.log
if [ "$(date -u +%H%M)" -lt 1625 ]; then
  one resnet18 1000 0 with
  echo "== timing resnet18 start $(date -u +%T)"
  (cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 10 \
    200-with-s0=/work/runs/s66/models/lib-resnet18-200-with-s0.so@0 \
    200-without-s0=/work/runs/s63/models/lib-resnet18-200-without-s0.so@0 \
    500-with-s0=/work/runs/s64/models/lib-resnet18-500-with-s0.so@0 \
    500-without-s0=/work/runs/s64/models/lib-resnet18-500-without-s0.so@0 \
    1000-with-s0=lib-resnet18-1000-with-s0.so@0 \
    1000-without-s0=/work/runs/s63/models/lib-resnet18-1000-without-s0.so@0 \
    2>&1 | grep -v "Scope Loaded") > models/timing-resnet18.log
  echo "   end $(date -u +%T)"; tail -7 models/timing-resnet18.log
else
  echo "== ResNet-18 1,000 with skipped: $(date -u +%T) is past 16:25"
fi
echo "== all done $(date -u +%T)"
