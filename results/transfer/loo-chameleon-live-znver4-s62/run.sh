#!/bin/bash
# Stop 62, the Zen 4 VM (2 vCPU, znver4 -avx512 -gfni), code of stop 61 (size-corrected rank group weights; the
# adaptive sampler's keep_best option exists but is off). Chameleon held out on L3-L6 live (real kernels on this
# CPU), with and without transfer, seeds 0-2, sources this machine's tables and corpus: the cells stop 61 left
# unmeasured. Nothing else ran meanwhile.
cd "$(dirname "$0")"
T=/work/main/results/transfer/tables-znver4-no-avx512-no-gfni
echo "== live start $(date -u +%T)"
TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune bench transfer --tables $T --layers L1,L2,L7,L8 --live L3,L4,L5,L6 \
  --recipes chameleon --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 \
  --out live --no-progress > loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
