#!/bin/bash
# Stop 111, Zen 3 VM (AMD EPYC, family 25 model 1, LLVM znver3), nothing else running. Issue 19's 5x goal on
# ResNet-18: the README's Zen 3 cell is stop 81's, from before the runner fix of stop 108 (the runner's own NumPy
# BLAS threads spun beside the timing). Here with today's code: 200 measurements with transfer (shipped corpus +
# within-run) against 1,000 without, from empty databases, seeds 0, 1, 2; then the six built libraries in one
# interleaved set (`bench latency`, 10 rounds, --combine: the three pairs judged together, round by round).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s111
mkdir -p $W
export TVM_NUM_THREADS=2
date -u
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
sg
M=$W/models
libs=() pairs=()
for S in 0 1 2; do
  one resnet18 200 $S with
  one resnet18 1000 $S without
  sg
  libs+=(--lib "200-with-s$S=$M/lib-resnet18-200-with-s$S.so@$S" --lib "1000-without-s$S=$M/lib-resnet18-1000-without-s$S.so@$S")
  pairs+=("200-with-s$S/1000-without-s$S")
done
echo "== latency resnet18 seeds 0-2 (10 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 10 --no-progress --out $W/latency-resnet18 "${libs[@]}" \
  --pairs "$(IFS=,; echo "${pairs[*]}")" --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18/
sg
echo "== done $(date -u +%T)"
