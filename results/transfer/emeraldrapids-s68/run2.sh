#!/bin/bash
# Stop 68, after run.sh (same VM and code), if run.sh's guard skipped it: VGG-16 at 1,000 with transfer, seed 0,
# then a second 8-round timing.py set of every seed-0 VGG-16 library on this CPU with ONNX Runtime.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s68
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
T=/work/main/results/transfer/models-rocketlake-s57/timing.py
one vgg16 1000 0 with
echo "== timing vgg16 start $(date -u +%T)"
(cd $W/models && $P $T vgg16 8 \
  200-with-s0=/work/runs/s64/models/lib-vgg16-200-with-s0.so@0 \
  200-without-s0=/work/runs/s64/models/lib-vgg16-200-without-s0.so@0 \
  500-with-s0=lib-vgg16-500-with-s0.so@0 \
  500-without-s0=lib-vgg16-500-without-s0.so@0 \
  1000-with-s0=lib-vgg16-1000-with-s0.so@0 \
  1000-without-s0=/work/runs/s67/models/lib-vgg16-1000-without-s0.so@0 \
  2>&1 | grep -v "Scope Loaded") > models/timing-vgg16-2.log
echo "   end $(date -u +%T)"; tail -8 models/timing-vgg16-2.log
echo "== all done $(date -u +%T)"
