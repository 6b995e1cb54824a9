#!/bin/bash
# Stop 104, after the CI of bbc1ee3, alone: where ResNet-18's tuning time goes at 200 measurements with and without
# transfer (seed 0, empty databases), read from the new `tuning time` line; no build.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s104/split
export TVM_NUM_THREADS=2
mkdir -p $W split
git -C /work/main log --oneline | head -1
for m in with without; do
  X=""; [ $m = without ] && X=--no-transfer
  rm -f $W/r-$m.db*
  echo "== $m start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model resnet18 --trials 200 $X --seed 0 --db $W/r-$m.db --out split/resnet18-200-$m-s0.json --no-progress > split/resnet18-200-$m-s0.txt 2>&1
  echo "   rc $? end $(date -u +%T)"
  grep -E "^tuning time|machine sgemm" split/resnet18-200-$m-s0.txt
done
