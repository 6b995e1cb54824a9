#!/bin/bash
# Stop 82, after run.sh (pid given as $1) ended, nothing else running: the extended znver5 corpus goes into the
# package (git shows it), then leave-one-layer-out with the current code as stop 49 ran it on Zen 5: the four
# table layers replayed over 9 seeds (timing-insensitive), then L5 held out live (not met there; L3, unreadable there, left out for time;
# L4 and L6 were met), 3 seeds, the tables and the shipped corpus as sources.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
T=/work/main/.venv/bin/tensortune
W=/work/runs/s82
export TVM_NUM_THREADS=2
while kill -0 "$1" 2>/dev/null; do sleep 20; done
NEW=$W/corpus/corpus-llvm-znver5.json.gz
if [ -f $NEW ]; then cp $NEW /work/main/src/tensortune/transfer/data/corpus-llvm-znver5.json.gz; fi
$T corpus show | head -20
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== loo tables start $(date -u +%T)"
mkdir -p $W/loo-tables $W/loo-live
$T bench transfer --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2,3,4,5,6,7,8 --trials 120 \
  --features knobs+corpus --out $W/loo-tables --no-progress > $W/loo-tables/log.txt 2>&1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/loo-tables && cp $W/loo-tables/{report.md,results.json,log.txt} $HERE/loo-tables/ 2>/dev/null
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== loo live L5 start $(date -u +%T)"
$T bench transfer --layers L1,L2,L7,L8 --live L5 --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 \
  --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out $W/loo-live --no-progress > $W/loo-live/log.txt 2>&1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/loo-live && cp $W/loo-live/{report.md,results.json,log.txt} $HERE/loo-live/ 2>/dev/null
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== done $(date -u +%T)"
