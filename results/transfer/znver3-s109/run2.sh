#!/bin/bash
# Stop 109, after the CI run, nothing else running: Zen 3's L8 table measured with the default protocol (3 passes,
# phase-corrected), to see whether L8's held-out cell (met against stop 108's one-pass table: 65 -> 3) holds against
# it; then the replay with L2 (six passes) and L8 (three passes) multi-pass, L1 and L7 stop 108's one-pass tables.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s109
T=/work/main/results/transfer/tables-znver3-s109
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
date -u; git -C /work/main log --oneline | head -1
sg
echo "== groundtruth L8, 3 passes, start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main groundtruth --layers L8 --passes 3 --db $W/gt8.db --out $T --no-progress \
  > gt-L8.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -4 gt-L8.log
sg
echo "== loo (replay) start $(date -u +%T)"
$P -m tensortune.cli.main bench transfer --tables $T --layers L1,L2,L7,L8 --recipes autotvm \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo-L8x3 --no-progress > loo-L8x3.log 2>&1
echo "   rc $? end $(date -u +%T)"
$P perseed.py loo-L8x3/results.json > perseed-L8x3.txt; grep L8 perseed-L8x3.txt
echo "== done $(date -u +%T)"
