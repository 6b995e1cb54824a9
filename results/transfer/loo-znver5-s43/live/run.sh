#!/bin/bash
# issue 19 (stop 43, znver5): leave-one-out with L3-L6 held out live (real measurements on this CPU), the tables
# L1, L2, L7, L8 and the shipped corpus as sources, after "a cross-task model ranks"; nothing else running
cd /work/runs/s43/loo-live
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
