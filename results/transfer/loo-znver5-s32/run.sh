#!/usr/bin/env bash
cd /work/runs/loo/znver5-s32
{ time /work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 200 --features knobs,knobs+corpus --no-progress --out /work/runs/loo/znver5-s32 ; } > loo.log 2>&1
