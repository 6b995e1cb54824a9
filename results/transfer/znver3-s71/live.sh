#!/bin/bash
# Stop 71, a 2-vCPU AMD EPYC VM (family 25 model 1, LLVM znver3, AVX2, 32 MiB L3), code d4360ed (lane variants),
# nothing else running: held-out L3-L6 live on this CPU, autotvm with and without transfer, seeds 0-2, 120
# measurements, every run's 8 best confirmed in 7 rounds; L1, L2, L7, L8 replayed from stop 27's tables of this CPU.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s71
export TVM_NUM_THREADS=2
lscpu | grep -E "Model name|^CPU\(s\)"
$P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
mkdir -p live
echo "== loo live start $(date -u +%T)"
$P -m tensortune.cli.main bench transfer --tables /work/main/results/transfer/tables-znver3 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes autotvm --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out $W/live --no-progress > live/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
cp $W/live/report.md $W/live/results.json live/
