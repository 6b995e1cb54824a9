#!/bin/bash
# Stop 72, a 2-vCPU AMD EPYC VM (family 25 model 1, LLVM znver3, AVX2, 32 MiB L3), code 6b457c2 (the lane rule),
# nothing else running: held out live on this CPU, seeds 0-2, 120 measurements, every run's 8 best confirmed in 7
# rounds; L1, L2, L7, L8 replayed from stop 27's tables of this CPU (and the live layers' sources).
# 1. autotvm, L4-L6 live: under the rule their first designs have no lane variants (mapped onto 8 and 16 lanes), so
#    this is the first design of before stop 71 on this CPU (stop 71 ran them with the variants; L3 keeps them).
# 2. chameleon, L3-L6 live (never run on this CPU before).
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s72
export TVM_NUM_THREADS=2
lscpu | grep -E "Model name|^CPU\(s\)"
$P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
mkdir -p autotvm chameleon
echo "== autotvm L4-L6 live start $(date -u +%T)"
$P -m tensortune.cli.main bench transfer --tables /work/main/results/transfer/tables-znver3 --layers L1,L2,L7,L8 \
  --live L4,L5,L6 --recipes autotvm --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out $W/autotvm --no-progress > autotvm/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
cp $W/autotvm/report.md $W/autotvm/results.json autotvm/
echo "== chameleon L3-L6 live start $(date -u +%T)"
$P -m tensortune.cli.main bench transfer --tables /work/main/results/transfer/tables-znver3 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes chameleon --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out $W/chameleon --no-progress > chameleon/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
cp $W/chameleon/report.md $W/chameleon/results.json chameleon/
echo "== done $(date -u +%T)"
