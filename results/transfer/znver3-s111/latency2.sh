#!/bin/bash
# Stop 111, after models.sh, nothing else running: the six ResNet-18 libraries of models.sh timed again in a second
# interleaved set (10 rounds, --combine), to see whether the first set's per-seed verdicts hold.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s111
M=$W/models
export TVM_NUM_THREADS=2
. ../bench-helpers.sh
sg
libs=() pairs=()
for S in 0 1 2; do
  libs+=(--lib "200-with-s$S=$M/lib-resnet18-200-with-s$S.so@$S" --lib "1000-without-s$S=$M/lib-resnet18-1000-without-s$S.so@$S")
  pairs+=("200-with-s$S/1000-without-s$S")
done
echo "== latency resnet18 seeds 0-2, second set (10 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 10 --no-progress --out $W/latency-resnet18-2 "${libs[@]}" \
  --pairs "$(IFS=,; echo "${pairs[*]}")" --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-2 && cp $W/latency-resnet18-2/{report.md,results.json,latency.png} $HERE/latency-resnet18-2/
sg
echo "== done $(date -u +%T)"
