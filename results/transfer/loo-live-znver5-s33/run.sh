#!/usr/bin/env bash
# issue 19 (stop 33): leave-one-layer-out on L3-L6, which have no table, measured live on this CPU;
# the table layers L1, L2, L7, L8 are the sources (and are replayed as before)
mkdir -p /work/runs/s33/loo-live && cd /work/runs/s33/loo-live
{ time /work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L6,L3,L5,L4 --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 --features knobs --out /work/runs/s33/loo-live ; } > loo.log 2>&1
