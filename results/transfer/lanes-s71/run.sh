#!/bin/bash
# Stop 71 (2-vCPU AMD EPYC VM, family 25 model 1, LLVM znver3): the lane variants against the first design before
# them, replay on all five CPUs' tables and corpora; code of the commit that adds them.
cd "$(dirname "$0")"
P=${P:-/work/main/.venv/bin/python}
R=../../..
for t in tables-znver3:znver3 tables-emeraldrapids:emeraldrapids tables-rocketlake:rocketlake \
         tables-znver4-no-avx512-no-gfni:znver4 package:znver5; do
  dir=${t%%:*}; name=${t##*:}
  [ "$dir" = package ] && tab=$R/src/tensortune/bench/tables || tab=$R/results/transfer/$dir
  echo "== $name autotvm seeds 0-5 $(date -u +%T)"
  $P study.py $tab L1,L2,L7,L8 autotvm 0,1,2,3,4,5 120 autotvm-$name.json 2>&1 | grep -v -i warn
  echo "== $name chameleon seeds 0-2 $(date -u +%T)"
  $P study.py $tab L1,L2,L7,L8 chameleon 0,1,2 120 chameleon-$name.json 2>&1 | grep -v -i warn
done
echo "== done $(date -u +%T)"
