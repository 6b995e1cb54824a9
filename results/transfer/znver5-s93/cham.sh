#!/bin/bash
cd /work/runs/s93
for m in off on; do
  RECIPE=chameleon CELLS=emeraldrapids/L1,rocketlake/L1,znver5/L1,znver4/L1 PYTHONPATH=/work/runs/s93/base/src /work/main/.venv/bin/python fallback.py $m 0,1,2 cham-$m.json >> cham-$m.log 2>&1
done
