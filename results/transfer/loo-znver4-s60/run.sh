#!/bin/bash
# Stop 60, the Zen 4 VM (LLVM `znver4`, AVX-512/GFNI hidden): ground-truth tables of L1, L2, L7, L8 on this machine,
# then leave one layer out on them (replay), autotvm and chameleon with and without transfer, seeds 0-2, 120
# measurements, knob features plus the shipped corpus as sources (the corpus built on this machine this stop).
cd "$(dirname "$0")"
TT=/work/main/.venv/bin/tensortune
TABLES=/work/main/results/transfer/tables-znver4-no-avx512-no-gfni
export TVM_NUM_THREADS=2
echo "== groundtruth start $(date -u +%T)"
/usr/bin/time -p $TT groundtruth --layers L1,L2,L7,L8 --db /work/runs/s60/gt.db --out $TABLES --no-progress > gt.log 2>&1
echo "   rc $?  end $(date -u +%T)"; tail -6 gt.log
echo "== loo start $(date -u +%T)"
$TT bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 \
  --features knobs+corpus --out . --no-progress > loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
echo "== all done $(date -u +%T)"
