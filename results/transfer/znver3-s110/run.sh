#!/bin/bash
# Stop 110, nothing else running: Zen 3's L1 and L7 tables measured with the default protocol (3 passes,
# phase-corrected), to see whether their held-out cells (met against stop 108's one-pass tables: L1 76 -> 2,
# L7 58 -> 3) hold against them; then the replay with all four tables multi-pass (L2 six passes and L8 three passes
# from stop 109), autotvm and chameleon.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s110
T=/work/main/results/transfer/tables-znver3-s110
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
date -u; git -C /work/main log --oneline | head -1
sg
for L in L1 L7; do
  echo "== groundtruth $L, 3 passes, start $(date -u +%T)"
  /usr/bin/time -p $P -m tensortune.cli.main groundtruth --layers $L --passes 3 --db $W/gt-$L.db --out $T --no-progress \
    > gt-$L.log 2>&1
  echo "   rc $? end $(date -u +%T)"; tail -4 gt-$L.log
  sg
done
echo "== loo (replay) start $(date -u +%T)"
$P -m tensortune.cli.main bench transfer --tables $T --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo-x4 --no-progress > loo-x4.log 2>&1
echo "   rc $? end $(date -u +%T)"
$P ../znver3-s109/perseed.py loo-x4/results.json > perseed-x4.txt; cat perseed-x4.txt
echo "== done $(date -u +%T)"
