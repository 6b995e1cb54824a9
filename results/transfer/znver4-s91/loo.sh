#!/bin/bash
# Stop 91, after the clean-clone CI, nothing else running: this CPU's own ground-truth tables of L1 and L8 (every
# config of each space measured once; no tables of a Zen 4 with AVX-512 existed: results/transfer/tables-znver4-
# no-avx512-no-gfni is the VM that hid AVX-512), then the replay leave-one-layer-out of L1 and L8 with today's code
# and the shipped (stop 91) znver4 corpus. Only two layers: the session had no time for L2 and L7 (22 min more);
# so each held-out layer's sources are the other table and the corpus, not three tables as on the other CPUs.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s91
export TVM_NUM_THREADS=2
TABLES=/work/main/results/transfer/tables-znver4
echo "== groundtruth start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main groundtruth --layers "${LAYERS:-L8,L1}" --db $W/gt.db --out $TABLES --no-progress > gt.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -6 gt.log
echo "== loo start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $TABLES --layers "${LAYERS:-L8,L1}" --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo --no-progress > loo.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -30 loo.log
