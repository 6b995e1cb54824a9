#!/usr/bin/env bash
mkdir -p /work/runs/s33/loo && cd /work/runs/s33/loo
{ time /work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 200 --features knobs,knobs+corpus --no-progress --out /work/runs/s33/loo ; } > loo.log 2>&1
