#!/bin/bash
# Stop 66 (emeraldrapids): leave one out live, autotvm, L3 and L4, with the source-trust cut (code d4a2f57), nothing
# else running. Run from the repository root.
set -e
P=.venv/bin/python
HERE=results/transfer/emeraldrapids-s66
W=/work/runs/s66
lscpu | grep -E "Model name|^CPU\(s\)"
$P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git log --oneline | head -1
date -u +%FT%T
time .venv/bin/tensortune bench transfer --tables results/transfer/tables-emeraldrapids --layers L1,L2,L7,L8 \
  --live L3,L4 --recipes autotvm --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 \
  --confirm-rounds 7 --out $W/live-autotvm --no-progress
date -u +%FT%T
mkdir -p $HERE/live-autotvm && cp $W/live-autotvm/report.md $W/live-autotvm/results.json $HERE/live-autotvm/
