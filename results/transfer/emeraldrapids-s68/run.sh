#!/bin/bash
# Stop 68, the same 2-vCPU Intel Xeon VM as stops 63-67 (family 6 model 207, LLVM `emeraldrapids`), code 15d2a26
# (stop 67's code: the cold protocol skips the cache flush for arguments larger than the last-level cache).
# Nothing else running. Stops 63-67's libraries are still on this machine (/work/runs/s63 ... s67).
# The missing cells of issue 19's grid on this CPU, seed 0:
#  1. ResNet-18 at 1,000 with transfer, then one 12-round timing.py set of the seed-0 ResNet-18 libraries
#     (200/500/1,000 with and without) with ONNX Runtime;
#  2. VGG-16 at 500 without and with transfer; VGG-16 at 1,000 with transfer if it is before 19:05 UTC;
#     then one 8-round timing.py set of the seed-0 VGG-16 libraries with ONNX Runtime.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s68
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
T=/work/main/results/transfer/models-rocketlake-s57/timing.py
one resnet18 1000 0 with
echo "== timing resnet18 start $(date -u +%T)"
(cd $W/models && $P $T resnet18 12 \
  200-with-s0=/work/runs/s66/models/lib-resnet18-200-with-s0.so@0 \
  200-without-s0=/work/runs/s63/models/lib-resnet18-200-without-s0.so@0 \
  500-with-s0=/work/runs/s64/models/lib-resnet18-500-with-s0.so@0 \
  500-without-s0=/work/runs/s64/models/lib-resnet18-500-without-s0.so@0 \
  1000-with-s0=lib-resnet18-1000-with-s0.so@0 \
  1000-without-s0=/work/runs/s63/models/lib-resnet18-1000-without-s0.so@0 \
  2>&1 | grep -v "Scope Loaded") > models/timing-resnet18.log
echo "   end $(date -u +%T)"; tail -8 models/timing-resnet18.log
one vgg16 500 0 without
one vgg16 500 0 with
V1000=""
if [ "$(date -u +%H%M)" -lt 1905 ]; then
  one vgg16 1000 0 with
  V1000="1000-with-s0=lib-vgg16-1000-with-s0.so@0"
else
  echo "== VGG-16 1,000 with skipped: $(date -u +%T) is past 19:05"
fi
echo "== timing vgg16 start $(date -u +%T)"
(cd $W/models && $P $T vgg16 8 \
  200-with-s0=/work/runs/s64/models/lib-vgg16-200-with-s0.so@0 \
  200-without-s0=/work/runs/s64/models/lib-vgg16-200-without-s0.so@0 \
  500-with-s0=lib-vgg16-500-with-s0.so@0 \
  500-without-s0=lib-vgg16-500-without-s0.so@0 \
  $V1000 \
  1000-without-s0=/work/runs/s67/models/lib-vgg16-1000-without-s0.so@0 \
  2>&1 | grep -v "Scope Loaded") > models/timing-vgg16.log
echo "   end $(date -u +%T)"; tail -8 models/timing-vgg16.log
echo "== all done $(date -u +%T)"
