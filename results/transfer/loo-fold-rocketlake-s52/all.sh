#!/bin/bash
# stop 52, after the fold fix (transfer/features.py: a split factor the target space holds at 1 is folded into the
# outer factor before mapping): L4 and L5 live, 3 seeds (the layers whose first configs the fix changes; the
# replayed layers' first configs are unchanged, see ../l1-init-rocketlake-s52/mapcmp.log, and run again here with
# 3 seeds as the bench's sources). Run alone, nothing else running.
set -x
cd "$(dirname "$0")"
export TVM_NUM_THREADS=2
T=/work/main/.venv/bin/tensortune
TABLES=/work/main/results/transfer/tables-rocketlake
mkdir -p live3
(cd live3 && time $T bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L4,L5 \
  --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out . --no-progress > run.log 2>&1)
