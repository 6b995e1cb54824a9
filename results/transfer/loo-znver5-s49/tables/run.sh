#!/bin/bash
# issue 19 (stop 49, znver5): leave one layer out on the package's znver5 tables (replay: timing-insensitive),
# autotvm and chameleon, 9 seeds, the other tables and the shipped corpus as sources
cd /work/runs/s49/loo-tables
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
