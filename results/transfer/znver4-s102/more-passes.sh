#!/bin/bash
# Stop 102, after CI: L4's first design with the best configs' reduction split (reduction_probe.py), then the chameleon
# file confirmed in two more passes (five in all; the same command with --confirm-passes 5: no search is rerun).
set -e
cd /work/main/results/transfer/znver4-s102
date -u
../../../.venv/bin/python reduction_probe.py
date -u
cd /work/main
.venv/bin/tensortune bench transfer --tables /work/main/results/transfer/tables-znver4 --layers L1,L2,L7,L8 \
  --live L3,L4,L5,L6 --recipes chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus \
  --out results/transfer/znver4-s102/chameleon --confirm-passes 5 --no-progress
date -u
