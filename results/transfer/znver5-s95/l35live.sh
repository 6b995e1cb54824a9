#!/bin/bash
while kill -0 27527 2>/dev/null; do sleep 5; done
cd /work/main
date
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L3,L5 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s95/l35-live --no-progress
echo rc=$?
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
date
