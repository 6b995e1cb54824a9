#!/bin/bash
# Stop 76: ResNet-18 seed 1, 200 measurements with transfer (the znver3 corpus extended with part 1b's stems,
# corpus-extend*.sh) from an empty database, built. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s76
export TVM_NUM_THREADS=2
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
echo "corpus in use: $($P -m tensortune.cli.main corpus show 2>&1 | grep '^corpus ')"
. ../bench-helpers.sh
one resnet18 200 1 with
