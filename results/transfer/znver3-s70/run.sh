#!/bin/bash
# Stop 70, a 2-vCPU AMD EPYC VM (family 25 model 1, LLVM `znver3`, AVX2, 32 MiB L3), code 59f9110 plus this
# machine's new corpus. Runs after ../corpus-build-znver3-s70.sh, nothing else running:
#  1. the corpus is copied into the package (a run here then takes it as its prior);
#  2. leave one layer out on stop 27's znver3 tables (same protocol and space as today's), replay, autotvm and
#     chameleon with and without transfer, seeds 0-2, 120 measurements;
#  3. ResNet-18 seed 0 from empty databases: 200 with transfer, 1,000 without; built; one 20-round
#     `tensortune bench latency` set with ONNX Runtime and PyTorch eager;
#  4. held-out L3-L6 live, autotvm with and without, seeds 0-2 (L1, L2, L7, L8 replayed again).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
TT="$P -m tensortune.cli.main"
TABLES=/work/main/results/transfer/tables-znver3
W=/work/runs/s70
export TVM_NUM_THREADS=2
while ! grep -q "rc " $W/corpus/build.log; do sleep 10; done
echo "== corpus build over: $(tail -1 $W/corpus/build.log)"
cp $W/corpus/build.log ../corpus-build-znver3-s70.log
cp $W/corpus/corpus-llvm-znver3.json.gz /work/main/src/tensortune/transfer/data/ || exit 1
lscpu | grep -E "Model name|^CPU\(s\)"
$P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
echo "corpus in use: $($TT corpus show 2>&1 | grep '^corpus ')"
mkdir -p loo
echo "== loo replay start $(date -u +%T)"
$TT bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 \
  --features knobs+corpus --out $W/loo --no-progress > loo/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
cp $W/loo/report.md $W/loo/results.json loo/
. ../bench-helpers.sh
one resnet18 200 0 with
one resnet18 1000 0 without
echo "== latency resnet18 start $(date -u +%T)"
$TT bench latency --model resnet18 --rounds 20 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s0=$W/models/lib-resnet18-200-with-s0.so@0 \
  --lib 1000-without-s0=$W/models/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with-s0/1000-without-s0
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} latency-resnet18/
mkdir -p live
echo "== loo live start $(date -u +%T)"
$TT bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm --seeds 0,1,2 \
  --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out $W/live --no-progress > live/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
cp $W/live/report.md $W/live/results.json live/
echo "== all done $(date -u +%T)"
