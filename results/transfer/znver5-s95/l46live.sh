#!/bin/bash
cd /work/main
date
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L4,L6 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s95/l46-live --no-progress
echo rc=$?
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
date
