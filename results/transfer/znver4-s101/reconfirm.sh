#!/bin/bash
# Stop 101: stop 100's live runs of L3-L6 (Zen 4), confirmed again with each run's incumbents beside its 8 best
# configs (3 passes, this session). The runs are not rerun: the results file is stop 100's, copied.
set -e
cd /work/main
HERE=results/transfer/znver4-s101
date -u
.venv/bin/python -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus \
  --out $HERE/reconfirm
date -u
