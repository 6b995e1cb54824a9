#!/bin/bash
# Stop 68, after run2.sh (same VM, nothing else running): the 5x pairs of three seeds in one 16-round timing.py set:
# ResNet-18 200 with and 1,000 without for seeds 0 (stops 66, 63), 1 (stop 64) and 2 (stop 65), with ONNX Runtime.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
export TVM_NUM_THREADS=2
T=/work/main/results/transfer/models-rocketlake-s57/timing.py
echo "== timing resnet18 pairs start $(date -u +%T)"
(cd /work/runs/s68/models && $P $T resnet18 16 \
  200-with-s0=/work/runs/s66/models/lib-resnet18-200-with-s0.so@0 \
  1000-without-s0=/work/runs/s63/models/lib-resnet18-1000-without-s0.so@0 \
  200-with-s1=/work/runs/s64/models/lib-resnet18-200-with-s1.so@1 \
  1000-without-s1=/work/runs/s64/models/lib-resnet18-1000-without-s1.so@1 \
  200-with-s2=/work/runs/s65/models/lib-resnet18-200-with-s2.so@2 \
  1000-without-s2=/work/runs/s65/models/lib-resnet18-1000-without-s2.so@2 \
  2>&1 | grep -v "Scope Loaded") > models/timing-resnet18-pairs.log
echo "   end $(date -u +%T)"; tail -8 models/timing-resnet18-pairs.log
