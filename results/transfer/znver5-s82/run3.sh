#!/bin/bash
# Stop 82, after run.sh (pid $1) ended, nothing else running: the extended znver5 corpus (already in the package,
# commit afd0634) as a source of leave-one-layer-out on the four znver5 tables, replayed over 9 seeds as stop 49
# ran it (timing-insensitive); then the corpus tests. The live layers (stop 49: L3-L6, 43 min) were left out for
# the session's time: the clean-clone CI comes after this.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
T=/work/main/.venv/bin/tensortune
W=/work/runs/s82
export TVM_NUM_THREADS=2
while kill -0 "$1" 2>/dev/null; do sleep 10; done
$T corpus show | head -12
echo "== loo tables start $(date -u +%T)"
mkdir -p $W/loo-tables
$T bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2,3,4,5,6,7,8 --trials 120 \
  --features knobs+corpus --out $W/loo-tables --no-progress > $W/loo-tables/log.txt 2>&1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/loo-tables && cp $W/loo-tables/{report.md,results.json,log.txt} $HERE/loo-tables/ 2>/dev/null
echo "== corpus tests start $(date -u +%T)"
cd /work/main && $P -m pytest -q tests/transfer/test_corpus.py tests/transfer/test_machines.py tests/transfer/test_transfer.py 2>&1 | tail -15
echo "== done $(date -u +%T)"
