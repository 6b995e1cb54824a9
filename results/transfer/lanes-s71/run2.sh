#!/bin/bash
# Stop 71: run.sh was stopped after Zen 3 (autotvm L1, L2, L7, L8 seeds 0-5; chameleon seeds 0-2) so that the rest
# fits the session beside the clean-clone CI: the other four CPUs' tables, held-out L1 and L2, autotvm, seeds 0-5.
cd "$(dirname "$0")"
P=${P:-/work/main/.venv/bin/python}
R=../../..
for t in tables-emeraldrapids:emeraldrapids tables-rocketlake:rocketlake tables-znver4-no-avx512-no-gfni:znver4 \
         package:znver5; do
  dir=${t%%:*}; name=${t##*:}
  [ "$dir" = package ] && tab=$R/src/tensortune/bench/tables || tab=$R/results/transfer/$dir
  echo "== $name autotvm seeds 0-5 $(date -u +%T)"
  $P study.py $tab L1,L2 autotvm 0,1,2,3,4,5 120 autotvm-$name.json 2>&1 | grep -v -i warn
done
echo "== done $(date -u +%T)"
