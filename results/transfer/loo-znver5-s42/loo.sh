#!/bin/bash
# issue 19 (stop 42, znver5): leave one layer out with the rebuilt corpus (stems added) as sources beside the tables;
# L1, L2, L7, L8 replayed from the shipped znver5 tables, L3-L5 held out live on this CPU
mkdir -p /work/runs/s42/loo && cd /work/runs/s42/loo
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L3,L4,L5 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
