#!/bin/bash
# issue 19, a probe: does a stem-like source (3 channels, 11x11 stride 4, not a zoo shape) let held-out L1
# (AlexNet's stem) transfer? One source run, then L1 with and without transfer, seeds 0-2, 64 measurements each.
set -e
cd /work/runs/s41/l1
T=/work/main/.venv/bin/tensortune
date -u +"start %F %T UTC"
$T tune --conv 3,192,192,48,11,4,2 --trials 96 --seed 0 --db stem.db --no-corpus --no-progress | tail -3
for s in 0 1 2; do
  cp stem.db with-$s.db
  $T tune --layer L1 --trials 64 --seed $s --db with-$s.db --no-corpus --no-progress | grep -i "transfer\|best" | head -4
  $T tune --layer L1 --trials 64 --seed $s --db without-$s.db --no-transfer --no-corpus --no-progress | grep -i "best" | head -2
done
date -u +"end %F %T UTC"
