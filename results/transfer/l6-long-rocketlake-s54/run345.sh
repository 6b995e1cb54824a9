#!/bin/bash
# stop 54: the run.sh command with seeds 3, 4, 5 (a second set of three: its own runs and confirmation; a changed
# --seeds cannot resume run.sh's directory)
export TVM_NUM_THREADS=2
cd /work/runs/s54/l6x
echo "== start $(date -u +%T)"; git -C /work/main log --oneline -1
/work/main/.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-rocketlake \
  --layers L1,L2,L7,L8 --live L6 --recipes autotvm --seeds 3,4,5 --trials 240 --features knobs+corpus \
  --confirm-top 8 --confirm-rounds 7 --out . --no-progress > run.log 2>&1
echo "   rc $? end $(date -u +%T)"
mkdir -p /work/main/results/transfer/l6-long-rocketlake-s54/seeds345
cp report.md results.json run.log /work/main/results/transfer/l6-long-rocketlake-s54/seeds345/
