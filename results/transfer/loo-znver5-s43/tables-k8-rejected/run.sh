#!/bin/bash
# issue 19 (stop 43, znver5): leave-one-out on the package's znver5 tables after "a task with one source starts from its k best" (on top of the rank change)
# (regression recipes fit their transferred model with rank loss); replay, so timing does not matter
cd /work/runs/s43/loo-tables-k8
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon,rl,sa-as \
  --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
