#!/bin/bash
# Stop 73, the Zen 3 VM of stops 70-72 (2-vCPU AMD EPYC, family 25 model 1, LLVM `znver3`, AVX2, 32 MiB L3), code
# of stop 72 (66b16a9). Issue 19's VGG-16 5x cell on this CPU, seed 0, nothing else running:
#  1. VGG-16 from empty databases: 200 with transfer (the shipped znver3 corpus + within-run), 1,000 without;
#     each built into a library;
#  2. one `tensortune bench latency` set of the two libraries with ONNX Runtime and PyTorch eager.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
TT="$P -m tensortune.cli.main"
W=/work/runs/s73
export TVM_NUM_THREADS=2
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
echo "corpus in use: $($TT corpus show 2>&1 | grep '^corpus ')"
. ../bench-helpers.sh
one vgg16 200 0 with
one vgg16 1000 0 without
echo "== latency vgg16 start $(date -u +%T)"
$TT bench latency --model vgg16 --rounds ${ROUNDS:-12} --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s0=$W/models/lib-vgg16-200-with-s0.so@0 \
  --lib 1000-without-s0=$W/models/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with-s0/1000-without-s0
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} latency-vgg16/
echo "== all done $(date -u +%T)"
