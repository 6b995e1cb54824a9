#!/usr/bin/env bash
# issue 19 (stop 33): stop 31's knob-against-PerStoreFeature replay again after the mapping fix (d262120);
# the features of the tables' configs are cached per table (copied from stop 32's run: same tables)
mkdir -p /work/runs/s33/loo-schedule && cd /work/runs/s33/loo-schedule
[ -d schedule-features ] || cp -r /work/runs/loo/znver5-s32/schedule-features .
{ time /work/main/.venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 200 --features knobs,schedule --no-progress --out /work/runs/s33/loo-schedule ; } > loo.log 2>&1
