#!/bin/bash
# Stop 74 (the Zen 3 VM), nothing else running: rows.py's two variants on all five CPUs' tables and corpora,
# L1, L2, L7, L8 held out, seeds 0-5, 120 measurements.
cd "$(dirname "$0")"
P=${P:-/work/main/.venv/bin/python}
R=../../..
export TVM_NUM_THREADS=2
for t in tables-znver3:znver3 tables-znver4-no-avx512-no-gfni:znver4 tables-emeraldrapids:emeraldrapids \
         tables-rocketlake:rocketlake package:znver5; do
  dir=${t%%:*}; name=${t##*:}
  [ "$dir" = package ] && tab=$R/src/tensortune/bench/tables || tab=$R/results/transfer/$dir
  echo "== $name $(date -u +%T)"
  $P rows.py $tab L1,L2,L7,L8 0,1,2,3,4,5 120 rows-$name.json allrows,ownrng 2>&1 | grep -v -i warn
done
echo "== done $(date -u +%T)"
