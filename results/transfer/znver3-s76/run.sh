#!/bin/bash
# Stop 76, the 2-vCPU Zen 3 VM (AMD EPYC, family 25 model 1, LLVM `znver3`), nothing else running:
# ResNet-18 seed 1, 1,000 measurements without transfer from an empty database, built (the 5x cell's baseline).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s76
export TVM_NUM_THREADS=2
mkdir -p $W
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one resnet18 1000 1 without
