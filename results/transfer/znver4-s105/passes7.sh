#!/bin/bash
# Stop 105: stop 100's autotvm live runs of L3-L6 on Zen 4 (seeds 0-2, 300 measurements, with and without transfer),
# as stops 101 and 103 confirmed them (five passes), confirmed in two more passes: seven in all, the count Zen 5's
# row of the goals table rests on (stops 95-96). The results file is stop 103's autotvm5/results.json, copied; the same
# command with --confirm-passes 7 reruns no search, it only measures the runs' best configs and incumbents again.
set -e
cd /work/main
date -u
lscpu | grep -E "Model name|CPU family|^Model:"
.venv/bin/python -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git log --oneline | head -1
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus \
  --out results/transfer/znver4-s105/autotvm7 --confirm-passes 7 --no-progress
date -u
