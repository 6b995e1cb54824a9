#!/bin/bash
# issue 19, a probe: does a stem-like source (3 channels, 3x3 stride 1, 160 px, not a zoo shape) let held-out L3
# (VGG-16's stem) transfer? One source run, then L1 with and without transfer, seeds 0-2, 64 measurements each.
set -e
cd /work/runs/s41/l3
T=/work/main/.venv/bin/tensortune
date -u +"start %F %T UTC"
$T tune --conv 3,160,160,48,3,1,1 --trials 96 --seed 0 --db stem.db --no-corpus --no-progress | tail -3
for s in 0 1 2; do
  cp stem.db with-$s.db
  $T tune --layer L3 --trials 64 --seed $s --db with-$s.db --no-corpus --no-progress | grep -i "transfer\|best" | head -4
  $T tune --layer L3 --trials 64 --seed $s --db without-$s.db --no-transfer --no-corpus --no-progress | grep -i "best" | head -2
done
date -u +"end %F %T UTC"
