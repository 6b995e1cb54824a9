#!/bin/bash
# Stop 108, the Zen 3 VM of stop 107 (AMD EPYC, family 25 model 1, LLVM `znver3`, AVX2), nothing else running.
# After the runner fix (8a1a520: no OpenBLAS threads spinning beside the first config a runner times), L6 held out
# live again as stop 107 ran it: autotvm with and without transfer, seeds 0-2, 300, three confirmation passes.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s108
export TVM_NUM_THREADS=2
TABLES=/work/main/results/transfer/tables-znver3
LIVE=${LIVE:-L6}
date -u
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
echo "== live $LIVE start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live $LIVE \
  --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus --out $W/live-$LIVE --no-progress > live-$LIVE.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -40 live-$LIVE.log
mkdir -p $HERE/live-$LIVE && cp $W/live-$LIVE/{report.md,results.json,curves.png} $HERE/live-$LIVE/ 2>/dev/null; ls $W/live-$LIVE
sg
echo "== done $(date -u +%T)"
