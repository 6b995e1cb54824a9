#!/bin/bash
# issue 19 (stop 48, znver5): leave one layer out on the tables with the rebuilt corpus (64-filter stem, Winograd
# records), same command as stop 43's tables-rank run
cd /work/runs/s48/tables
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon,rl,sa-as --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress
