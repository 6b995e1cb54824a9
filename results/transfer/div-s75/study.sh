#!/bin/bash
# Stop 75: the diverse plan on the other four CPUs' tables (replay; Zen 3's ran first: div-znver3.txt).
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
for t in znver5:../../../src/tensortune/bench/tables rocketlake:../tables-rocketlake emeraldrapids:../tables-emeraldrapids \
         znver4vm:../tables-znver4-no-avx512-no-gfni; do
  echo "== ${t%%:*} start $(date -u +%T)"
  $P study.py "${t#*:}" L1,L2,L7,L8 0,1,2,3,4,5 120 "div-${t%%:*}.json" top,div2 > "div-${t%%:*}.txt" 2>&1
  echo "   rc $? end $(date -u +%T)"; cat "div-${t%%:*}.txt"
done
