#!/bin/bash
# Stop 107, a Zen 3 VM (AMD EPYC, family 25 model 1, LLVM `znver3`, AVX2; the kind of stops 70-81), nothing else
# running. The first Zen 3 stop since 81: stops 82-106 changed the transfer code (budget variants, probes, the
# ranked first design's rejection, confirmation passes, ...), and Zen 3's held-out row is stops 71-74's. Measures,
# with today's code:
#   1. the replay leave-one-layer-out of L1, L2, L7, L8 on this CPU's tables (three tables + the shipped znver3
#      corpus as sources), autotvm and chameleon, seeds 0-2, 300;
#   2. L3-L6 held out live, autotvm with and without, seeds 0-2, 300, three confirmation passes (the default).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s107
export TVM_NUM_THREADS=2
TABLES=/work/main/results/transfer/tables-znver3
date -u
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
echo "== loo (replay) start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo --no-progress > loo.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -25 loo.log
sg
echo "== live L3-L6 start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L3,L4,L5,L6 \
  --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus --out $W/live --no-progress > live.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -40 live.log
mkdir -p $HERE/live && cp $W/live/{report.md,results.json,curves.png} $HERE/live/ 2>/dev/null; ls $W/live
sg
echo "== done $(date -u +%T)"
