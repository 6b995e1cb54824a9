#!/bin/bash
# Held-out L6 live at 240 measurements, autotvm with and without transfer, seeds 0-5 (stop 55, after TRANSFER_PLAN_SIZE/FADE)
cd "$(dirname "$0")"
TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-rocketlake --layers L1,L2,L7,L8 --live L6 --recipes autotvm --seeds 0,1,2,3,4,5 --trials 240 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out . --no-progress
