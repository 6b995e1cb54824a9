#!/bin/bash
# Stop 101: fresh live runs of L5 and L6 on this Zen 4 VM (seeds 3-5, autotvm), confirmed with incumbents (the
# default since this stop), to see whether stop 100's runs' reconfirmed figures (L6 met, L5 not) hold on new runs.
set -e
cd /work/main
HERE=results/transfer/znver4-s101
date -u
.venv/bin/python -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --live L5,L6 --recipes autotvm --seeds 3,4,5 --trials 300 --features knobs+corpus \
  --out $HERE/live56
date -u
