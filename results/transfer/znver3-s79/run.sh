#!/bin/bash
# Stop 79, the 2-vCPU Zen 3 VM (AMD EPYC, family 25 model 1, LLVM `znver3`), nothing else running, one step after
# another: the 500-measurement cells of issue 19's grid at seed 0 with the shipped corpus (stop 78's), then one
# 24-round latency set per model of these two and stop 78's 200-with and 1,000-without libraries (same code but
# for review refactors that change no space or fingerprint), then fc6's stored top configs re-measured (fc6/fc6b.py).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s79
export TVM_NUM_THREADS=2
mkdir -p $W/models
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one vgg16 500 0 without
one vgg16 500 0 with
one resnet18 500 0 without
one resnet18 500 0 with
M=$W/models O=/work/runs/s78/models
for m in vgg16 resnet18; do
  echo "== latency $m (24 rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $m --rounds 24 --no-progress --out $W/latency-$m \
    --lib 500-with=$M/lib-$m-500-with-s0.so@0 --lib 500-without=$M/lib-$m-500-without-s0.so@0 \
    --lib 200-with=$O/lib-$m-200-with-s78corpus-s0.so@0 --lib 1000-without=$O/lib-$m-1000-without-s0.so@0 \
    --pairs 500-with/500-without,500-with/1000-without,200-with/1000-without,200-with/500-without,500-without/1000-without
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$m-24 && cp $W/latency-$m/{report.md,results.json,latency.png} $HERE/latency-$m-24/
done
echo "== fc6 re-measured start $(date -u +%T)"
$P fc6/fc6b.py 10 2>&1 | grep -v "Scope Loaded\|^\s*$\|Unroll hint" > fc6/fc6b.log
echo "== done $(date -u +%T)"
