#!/bin/bash
# Stop 72 (2-vCPU AMD EPYC VM, family 25 model 1, LLVM znver3): the lane rule (the code) on all five CPUs' tables
# and corpora, autotvm seeds 0-5, to set beside stop 71's "never"/"always" runs (../lanes-s71, deterministic
# replay); Zen 5's L7 and L8, which stop 71 did not run and where the rule gives the variants on L8, all three.
cd "$(dirname "$0")"
P=${P:-/work/main/.venv/bin/python}
R=../../..
echo "== znver5 L7,L8 never,always,rule $(date -u +%T)"
$P study.py $R/src/tensortune/bench/tables L7,L8 autotvm 0,1,2,3,4,5 120 autotvm-znver5-l7l8.json 2>&1 | grep -v -i warn
for t in tables-znver4-no-avx512-no-gfni:znver4 package:znver5 tables-znver3:znver3 tables-emeraldrapids:emeraldrapids \
         tables-rocketlake:rocketlake; do
  dir=${t%%:*}; name=${t##*:}
  [ "$dir" = package ] && tab=$R/src/tensortune/bench/tables || tab=$R/results/transfer/$dir
  lay=L1,L2,L7,L8; [ $name = znver5 ] && lay=L1,L2
  echo "== $name $lay rule $(date -u +%T)"
  $P study.py $tab $lay autotvm 0,1,2,3,4,5 120 autotvm-$name.json rule 2>&1 | grep -v -i warn
done
echo "== done $(date -u +%T)"
