#!/bin/bash
# issue 19, stop 54: held-out L6 at 120 measurements sits either side of the 95% line from run to run (autotvm
# with transfer 22, 95, > 120 at stops 51-53; without > 120 in every stop), so neither figure can be read as a
# ratio. Here both modes get 240 measurements, live on this CPU, 3 seeds, after the whole-model grid (alone).
# The table layers (L1, L2, L7, L8) are the sources and are replayed too (timing-insensitive).
export TVM_NUM_THREADS=2
cd /work/runs/s54/l6
echo "== start $(date -u +%T)"; git -C /work/main log --oneline -1
/work/main/.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-rocketlake \
  --layers L1,L2,L7,L8 --live L6 --recipes autotvm --seeds 0,1,2 --trials 240 --features knobs+corpus \
  --confirm-top 8 --confirm-rounds 7 --out . --no-progress > run.log 2>&1
echo "   rc $? end $(date -u +%T)"
cp report.md results.json run.log /work/main/results/transfer/l6-long-rocketlake-s54/
