#!/bin/bash
# issue 19 (stop 42, znver5): the table layers again after the replan fix (a model that starts from the prior plans
# again as soon as its plan is used up); same command as loo2.sh
mkdir -p /work/runs/s42/loo-tables-replan && cd /work/runs/s42/loo-tables-replan
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
