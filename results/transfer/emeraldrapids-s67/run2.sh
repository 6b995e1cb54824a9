#!/bin/bash
# Stop 67, after run.sh's VGG-16 tune and build (run.sh was stopped there, before its timing step, to free the
# machine for the cold-flush fix): one 8-round timing.py set of VGG-16 200 with, 200 without (stop 64's
# libraries) and 1,000 without (this stop's) with ONNX Runtime. Nothing else running.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s67
export TVM_NUM_THREADS=2
echo "== timing vgg16 start $(date -u +%T)"
(cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py vgg16 8 \
  200-with-s0=/work/runs/s64/models/lib-vgg16-200-with-s0.so@0 \
  200-without-s0=/work/runs/s64/models/lib-vgg16-200-without-s0.so@0 \
  1000-without-s0=lib-vgg16-1000-without-s0.so@0 \
  2>&1 | grep -v "Scope Loaded") > models/timing-vgg16.log
echo "   end $(date -u +%T)"; tail -4 models/timing-vgg16.log
