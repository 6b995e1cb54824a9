#!/bin/bash
cd /work/main
date
.venv/bin/tensortune bench transfer --layers L2,L7,L8 --live L1 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s95/l1-live --no-progress
echo rc=$?
date
