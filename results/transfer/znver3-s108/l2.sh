#!/bin/bash
# Stop 108, Zen 3 VM, nothing else running: Zen 3's L2 table measured again (tables_sample.py found the stop-73
# table's optimum read 1.5x faster than the rest of its configs relative to today's re-measurement), checked the
# same way, then the replay leave-one-layer-out with it (L1, L7, L8 tables unchanged), autotvm, seeds 0-2, 300.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s108
export TVM_NUM_THREADS=2
T=/work/main/results/transfer/tables-znver3-s108
date -u; git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
echo "== groundtruth L2 start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main groundtruth --layers L2 --db $W/gt.db --out $T --no-progress > gt-L2.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -4 gt-L2.log
sg
echo "== sample check start $(date -u +%T)"
$P tables_sample.py $T L2 > tables_sample_new.txt 2>&1; grep -v "^  index" tables_sample_new.txt
sg
echo "== loo (replay) start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $T --layers L1,L2,L7,L8 --recipes autotvm \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo-newL2 --no-progress > loo-newL2.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -12 loo-newL2.log
sg
echo "== done $(date -u +%T)"
