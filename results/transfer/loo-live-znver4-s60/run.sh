#!/bin/bash
# Stop 60, the Zen 4 VM, after VGG-16's timing set: held-out L3 live (no table; real kernels on this CPU), autotvm
# with and without transfer, seeds 0-2, 120 measurements, sources this machine's tables and corpus; L1, L2, L7, L8
# replayed again for autotvm (as in rocketlake's stop-55 run). Only L3: time (CI must follow in this stop).
cd "$(dirname "$0")"
echo "== loo live start $(date -u +%T)"
TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4-no-avx512-no-gfni \
  --layers L1,L2,L7,L8 --live L3 --recipes autotvm --seeds 0,1,2 --trials 120 --features knobs+corpus \
  --confirm-top 8 --confirm-rounds 7 --out . --no-progress > loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
