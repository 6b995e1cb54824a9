#!/bin/bash
# Five more confirmation passes of L4 and L6 (passes 6-10 of stop 96's l46-live, on a copy), at least 300 s from the
# end of a layer's pass to its next (--confirm-gap), to see how long the machine's states last.
cd /work/main
date
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L4,L6 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s96/l46-live-10 --confirm-passes 10 --confirm-gap 300
echo rc=$?
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
date
