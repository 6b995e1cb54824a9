#!/bin/bash
# Stop 111, after models.sh and latency2.sh, nothing else running: ResNet-18 at 500 measurements with transfer,
# seeds 0, 1, 2, from empty databases (issue 19's grid asks for 500 too); then each against the 1,000 without of
# models.sh in one interleaved set (10 rounds, --combine): is 500 with at least as fast as 1,000 without (2x)?
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
  one resnet18 500 $S with
  libs+=(--lib "500-with-s$S=$M/lib-resnet18-500-with-s$S.so@$S" --lib "1000-without-s$S=$M/lib-resnet18-1000-without-s$S.so@$S")
  pairs+=("500-with-s$S/1000-without-s$S")
done
sg
echo "== latency resnet18 500 with / 1000 without, seeds 0-2 (10 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 10 --no-progress --out $W/latency-resnet18-500 "${libs[@]}" \
  --pairs "$(IFS=,; echo "${pairs[*]}")" --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-500 && cp $W/latency-resnet18-500/{report.md,results.json,latency.png} $HERE/latency-resnet18-500/
sg
echo "== done $(date -u +%T)"
