#!/bin/bash
# Stop 101: replay, leave one layer out, on this CPU's four tables over nine seeds (the conformance count),
# autotvm only (chameleon read the same in stop 100).
set -e
cd /work/main
date -u
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --recipes autotvm --seeds 0,1,2,3,4,5,6,7,8 --trials 300 --features knobs+corpus \
  --out results/transfer/znver4-s101/replay9 --no-progress
date -u
