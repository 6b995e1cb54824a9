#!/bin/bash
# Stop 109: replay leave-one-layer-out with the six-pass L2 table frozen with the phase correction (refreeze.py);
# L1, L7, L8 as in stop 108. Replay answers from the tables, so nothing here is timed.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
date -u; git -C /work/main log --oneline | head -1
$P -m tensortune.cli.main bench transfer --tables /work/main/results/transfer/tables-znver3-s109 --layers L1,L2,L7,L8 \
  --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus --out loo-L2x6-phase --no-progress > loo-L2x6-phase.log 2>&1
echo "rc $? $(date -u +%T)"
$P perseed.py loo-L2x6-phase/results.json > perseed-L2x6-phase.txt
$P perseed.py loo-L2x6/results.json > perseed-L2x6.txt
