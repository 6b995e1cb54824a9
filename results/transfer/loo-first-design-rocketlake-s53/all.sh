#!/bin/bash
# stop 53 (Intel Xeon, LLVM rocketlake): leave one layer out after the first-design change (2ef9da7: 8 first
# configs shared out over the sources, at least 2 each). 1: live L3-L6 + replayed L1,L2,L7,L8, 3 seeds, run alone.
# 2: replay only (timing-insensitive), 9 seeds, on this CPU's tables and on the znver5 (shipped) and znver3 tables.
set -x
cd "$(dirname "$0")"
export TVM_NUM_THREADS=2
T=/work/main/.venv/bin/tensortune
TABLES=/work/main/results/transfer/tables-rocketlake
mkdir -p live3 replay9 replay9-znver5 replay9-znver3
if [ "$1" != replay ]; then
(cd live3 && time $T bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L3,L4,L5,L6 \
  --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out . --no-progress > run.log 2>&1)
fi
if [ "$1" != live ]; then
(cd replay9 && time $T bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress > run.log 2>&1)
(cd replay9-znver5 && time $T bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress > run.log 2>&1)
(cd replay9-znver3 && time $T bench transfer --tables /work/main/results/transfer/tables-znver3 --layers L1,L2,L7,L8 \
  --recipes autotvm,chameleon --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress > run.log 2>&1)
fi
