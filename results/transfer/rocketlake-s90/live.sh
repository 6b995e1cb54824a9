#!/bin/bash
# NOT RUN in stop 90 (the session's time went to the clean-clone CI on this CPU); kept as the next command to run here.
# Stop 90, after run.sh: held-out L4 and L5 measured live (L3 and L6 left out for time) on this CPU, autotvm with and without transfer, seeds 0-2,
# 200 measurements, each run's 8 best configs confirmed in 7 interleaved rounds (the replayed L1, L2, L7, L8 are in
# loo/). Nothing else running.
set -u
cd "$(dirname "$0")"
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
export TVM_NUM_THREADS=2
echo "start $(date -u +%T)"
/work/main/.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-rocketlake \
  --layers L1,L2,L7,L8 --live L4,L5 --recipes autotvm --seeds 0,1,2 --trials 200 --features knobs+corpus \
  --confirm-top 8 --confirm-rounds 7 --out /work/runs/s90/loo-live --no-progress
echo "rc $? end $(date -u +%T)"
mkdir -p loo-live && cp /work/runs/s90/loo-live/{report.md,results.json} loo-live/ 2>/dev/null; ls /work/runs/s90/loo-live
