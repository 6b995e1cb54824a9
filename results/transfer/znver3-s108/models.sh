#!/bin/bash
# Stop 108, Zen 3 VM, nothing else running: issue 19's 5x goal on VGG-16 at seed 0 with the runner fix (8a1a520):
# 200 measurements with transfer (shipped corpus + within-run) against 1,000 without, from empty databases, then
# the two built libraries side by side (`bench latency`, 8 rounds).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s108
export TVM_NUM_THREADS=2
date -u
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
M=$W/models
S=${SEED:-0}
one vgg16 200 $S with
one vgg16 1000 $S without
sg
echo "== latency vgg16 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s$S=$M/lib-vgg16-200-with-s$S.so@$S --lib 1000-without-s$S=$M/lib-vgg16-1000-without-s$S.so@$S \
  --pairs 200-with-s$S/1000-without-s$S
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== done $(date -u +%T)"
