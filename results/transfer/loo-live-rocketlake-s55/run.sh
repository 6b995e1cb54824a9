#!/bin/bash
# Held-out L3, L4, L5 live at 120 measurements, autotvm with and without transfer, seeds 0-2 (stop 55, after
# TRANSFER_PLAN_SIZE/FADE; chameleon's strategy is unchanged, so only autotvm is run again); L1, L2, L7, L8 replayed.
cd "$(dirname "$0")"
echo "== loo live start $(date -u +%T)"
TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-rocketlake --layers L1,L2,L7,L8 --live L3,L4,L5 --recipes autotvm --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out . --no-progress > run.log 2>&1
echo "   rc $?  end $(date -u +%T)"
