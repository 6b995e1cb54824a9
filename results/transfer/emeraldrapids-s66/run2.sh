#!/bin/bash
# Stop 66, after the clean-clone CI run: ResNet-18 seed 0 at 200 with transfer on the code with the trust cut and its
# per-run model cache (4d6b987), then one 6-round timing set with stop 63's seed-0 libraries (200 with, code before;
# 1,000 without) and ONNX Runtime. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s66
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
git -C /work/main log --oneline | head -1
one resnet18 200 0 with
echo "== timing resnet18 start $(date -u +%T)"
(cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 6 \
  200-with-trust-s0=lib-resnet18-200-with-s0.so@0 \
  200-with-s0-before=/work/runs/s63/models/lib-resnet18-200-with-s0.so@0 \
  1000-without-s0=/work/runs/s63/models/lib-resnet18-1000-without-s0.so@0 \
  2>&1 | grep -v "Scope Loaded") > models/timing-resnet18.log
echo "   end $(date -u +%T)"; tail -6 models/timing-resnet18.log
