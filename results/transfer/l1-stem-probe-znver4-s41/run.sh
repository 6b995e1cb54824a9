#!/bin/bash
# issue 19, a probe: does a stem-like source (not a zoo shape) let a held-out stem layer transfer? One source run,
# then the layer with and without transfer, seeds 0-2, 64 measurements each.
# Usage: run.sh LAYER SOURCE_CONV DIR   (stop 41: L1 3,192,192,48,11,4,2 /work/runs/s41/l1;
#                                                  L3 3,160,160,48,3,1,1 /work/runs/s41/l3)
set -e
LAYER=$1; SRC=$2; mkdir -p "$3"; cd "$3"
T=/work/main/.venv/bin/tensortune
date -u +"start %F %T UTC"
$T tune --conv "$SRC" --trials 96 --seed 0 --db stem.db --no-corpus --no-progress | tail -3
for s in 0 1 2; do
  cp stem.db with-$s.db
  $T tune --layer "$LAYER" --trials 64 --seed $s --db with-$s.db --no-corpus --no-progress | grep -i "transfer\|best" | head -4
  $T tune --layer "$LAYER" --trials 64 --seed $s --db without-$s.db --no-transfer --no-corpus --no-progress | grep -i "best" | head -2
done
date -u +"end %F %T UTC"
