#!/bin/bash
# Stop 104, a Zen 4 VM with AVX-512 (AMD EPYC, family 25 model 17, LLVM `znver4`), nothing else running, after the
# clean-clone CI of 9bf7da4. ResNet-18's whole grid at seed 0 with today's code (the whole-model flow unchanged since
# stop 98): 200, 500 and 1,000 measurements with and without transfer, then the six libraries in one interleaved
# latency set (stop 103 measured VGG-16's grid and only ResNet-18's 200 with / 1,000 without at seed 2).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s104
export TVM_NUM_THREADS=2
mkdir -p $W
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
. ../bench-helpers.sh
M=$W/models
grid() {  # MODEL ROUNDS
  sg
  one $1 200 0 with; one $1 1000 0 without; one $1 200 0 without; one $1 500 0 with; one $1 500 0 without
  one $1 1000 0 with
  sg
  echo "== latency $1 grid ($2 rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $1 --rounds $2 --no-progress --out $W/latency-$1 \
    --lib 200-with=$M/lib-$1-200-with-s0.so@0 --lib 200-without=$M/lib-$1-200-without-s0.so@0 \
    --lib 500-with=$M/lib-$1-500-with-s0.so@0 --lib 500-without=$M/lib-$1-500-without-s0.so@0 \
    --lib 1000-with=$M/lib-$1-1000-with-s0.so@0 --lib 1000-without=$M/lib-$1-1000-without-s0.so@0 \
    --pairs 200-with/1000-without,500-with/1000-without,200-with/200-without,500-with/500-without,1000-with/1000-without
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$1 && cp $W/latency-$1/{report.md,results.json,latency.png} $HERE/latency-$1/
}
grid resnet18 10
sg
echo "== done $(date -u +%T)"
