#!/bin/bash
# Stop 61, the Zen 4 VM (2 vCPU, znver4 -avx512 -gfni), code with the size-corrected rank group weights
# (cost_models/xgb.py: rank_group_weights). 1) replay: L1, L2, L7, L8 held out in turn on this machine's tables,
# autotvm and chameleon, with and without transfer, seeds 0-2; 2) live: L3-L6 held out (real kernels on this CPU),
# autotvm with and without transfer, seeds 0-2, sources this machine's tables and corpus. Nothing else ran meanwhile.
cd "$(dirname "$0")"
T=/work/main/results/transfer/tables-znver4-no-avx512-no-gfni
echo "== replay start $(date -u +%T)"
mkdir -p replay live
/work/main/.venv/bin/tensortune bench transfer --tables $T --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out replay --no-progress > replay/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
echo "== live start $(date -u +%T)"
TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune bench transfer --tables $T --layers L1,L2,L7,L8 --live L3,L4,L5,L6 \
  --recipes autotvm --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 \
  --out live --no-progress > live/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
