#!/bin/bash
# Stop 65, the same 2-vCPU Intel Xeon VM as stops 63-64 (family 6 model 207, LLVM `emeraldrapids`), code 8909f92
# (stop 63's code, corpus and tables). Nothing else running. Stops 63-64's ResNet-18 libraries are still on this
# machine (/work/runs/s63, /work/runs/s64).
#  1. ResNet-18 seed 2 at 200 with and 1,000 without (the 5x goal's pair, a third seed), then one 12-round
#     interleaved timing set of the three seeds' pairs with ONNX Runtime (timing.py);
#  2. leave one out live on this CPU, autotvm, L5 and L6 (stop 63 ran L3, L4);
#  3. leave one out live, chameleon, L3 and L4; then L5 and L6 if it is before 08:45 UTC.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s65
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
one resnet18 200 2 with
one resnet18 1000 2 without
echo "== timing resnet18 start $(date -u +%T)"
(cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 12 \
  200-with-s0=/work/runs/s63/models/lib-resnet18-200-with-s0.so@0 \
  1000-without-s0=/work/runs/s63/models/lib-resnet18-1000-without-s0.so@0 \
  200-with-s1=/work/runs/s64/models/lib-resnet18-200-with-s1.so@1 \
  1000-without-s1=/work/runs/s64/models/lib-resnet18-1000-without-s1.so@1 \
  200-with-s2=lib-resnet18-200-with-s2.so@2 1000-without-s2=lib-resnet18-1000-without-s2.so@2 \
  2>&1 | grep -v "Scope Loaded") > models/timing-resnet18.log
echo "   end $(date -u +%T)"; tail -7 models/timing-resnet18.log
T=/work/main/results/transfer/tables-emeraldrapids
live() {  # recipe layers outdir
  echo "== live $1 $2 start $(date -u +%T)"
  (cd $W && $P -m tensortune.cli.main bench transfer --tables $T --layers L1,L2,L7,L8 --live $2 --recipes $1 \
     --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out $3 --no-progress \
     > $3.log 2>&1; echo "   rc $?  end $(date -u +%T)")
  mkdir -p $HERE/$3 && cp $W/$3/report.md $W/$3/results.json $W/$3.log $HERE/$3/
}
live autotvm L5,L6 live-autotvm
live chameleon L3,L4 live-chameleon
if [ "$(date -u +%H%M)" -lt 0845 ]; then
  live chameleon L5,L6 live-chameleon-56
else
  echo "== chameleon L5, L6 skipped: $(date -u +%T) is past 08:45"
fi
echo "== all done $(date -u +%T)"
