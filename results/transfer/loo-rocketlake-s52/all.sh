#!/bin/bash
# stop 52 (Intel Xeon, LLVM rocketlake): leave one layer out with the rebuilt corpus (stem-like shapes at 256
# measurements). Run alone, nothing else running.
set -x
cd "$(dirname "$0")"
export TVM_NUM_THREADS=2
T=/work/main/.venv/bin/tensortune
TABLES=/work/main/results/transfer/tables-rocketlake
mkdir -p replay9 live3
# 1. the four table layers, replayed, 9 seeds (timing-insensitive)
(cd replay9 && time $T bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress > run.log 2>&1)
# 2. all eight layers, L3-L6 measured live, 3 seeds (the issue's table)
(cd live3 && time $T bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L3,L4,L5,L6 \
  --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out . --no-progress > run.log 2>&1)
