#!/bin/bash
# Stop 102: Chameleon held out on this Zen 4 VM (AVX-512), L3-L6 live and L1, L2, L7, L8 in replay, with and without
# transfer, seeds 0-2, 300 measurements: the protocol of stops 100-101's autotvm runs (incumbents and top 8 confirmed
# in 3 passes). The chameleon cells of issue 19's report on this CPU had been measured in replay only (stop 100).
set -e
cd /work/main
HERE=results/transfer/znver4-s102
date -u
grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 -P "^model\s" /proc/cpuinfo
.venv/bin/python -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus \
  --out $HERE/chameleon --no-progress
date -u
