#!/bin/bash
# issue 19 (stop 42, znver5): the table layers again with the corpus's 11x11/4 stem at 195 px (the first run's
# 192 px stem had 47 output columns, a prime); replay only, the live layers have no source among the stems
mkdir -p /work/runs/s42/loo-tables && cd /work/runs/s42/loo-tables
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
