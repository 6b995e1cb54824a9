#!/bin/bash
# issue 19 (stop 49, znver5): leave one layer out, L3-L6 held out live (real measurements), the tables L1, L2, L7,
# L8 and the shipped corpus as sources; confirmation widened to each run's 8 best configs, 7 interleaved rounds
# (stop 43: 3 and 3; raw first measurements there read up to 1.18x the confirmed optimum); nothing else running
cd /work/runs/s49/loo-live  # its output copied here
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out . --no-progress
date -u +"end %F %T UTC"
