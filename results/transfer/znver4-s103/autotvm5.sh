#!/bin/bash
# Stop 103: stop 100's autotvm live runs of L3-L6 (Zen 4), as stop 101 confirmed them (3 passes, with incumbents),
# confirmed in two more passes (five in all; the same command with --confirm-passes 5: no search is rerun), as stop
# 102 did for chameleon, to see whether autotvm's L3 also reads differently over five passes. The results file is stop
# 101's reconfirm file, copied.
set -e
cd /work/main
date -u
.venv/bin/python -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus \
  --out results/transfer/znver4-s103/autotvm5 --confirm-passes 5 --no-progress
date -u
