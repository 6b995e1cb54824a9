#!/bin/bash
# issue 19: L3 and L4 held out live (no table source in stop 33), knob features with and without the shipped corpus
# as further sources, each run's best configs confirmed at the end
cd /work/runs/s34/loo-live
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L3,L4 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs,knobs+corpus --out . --no-progress
date -u +"end %F %T UTC"
