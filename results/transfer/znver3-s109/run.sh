#!/bin/bash
# Stop 109, Zen 3 VM, nothing else running: Zen 3's L2 table measured with the multi-pass protocol, six passes in
# one database (each pass its own random order), so that two 3-pass tables (passes 1-3 and 4-6, the default
# protocol) can be compared with each other as one-pass tables were (stop 108: Spearman 0.44 between two days).
# Then the replay leave-one-layer-out with the six-pass L2 table (L1, L7, L8 as in stop 108), autotvm, seeds 0-2, 300.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s109
T=/work/main/results/transfer/tables-znver3-s109
mkdir -p $W $T
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
date -u; git -C /work/main log --oneline | head -1
sg
echo "== groundtruth L2, 6 passes, start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main groundtruth --layers L2 --passes 6 --db $W/gt.db --out $T --no-progress \
  > gt-L2.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -4 gt-L2.log
sg
cp ../tables-znver3-s108/L1.json.gz ../tables-znver3-s108/L7.json.gz ../tables-znver3-s108/L8.json.gz $T/
echo "== loo (replay) start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $T --layers L1,L2,L7,L8 --recipes autotvm \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo-L2x6 --no-progress > loo-L2x6.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -12 loo-L2x6.log
sg
echo "== done $(date -u +%T)"
