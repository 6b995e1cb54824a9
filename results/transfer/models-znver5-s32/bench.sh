#!/usr/bin/env bash
# issue 19 on znver5 (stop 32): whole models at 200/500/1,000 with transfer (the shipped znver5 corpus +
# within-run transfer) and without (--no-transfer), each on an empty database; with/without interleaved
set -u
mkdir -p /work/runs/s32 && cd /work/runs/s32
T=/work/main/.venv/bin/tensortune
run() { name=$1; shift; echo "=== $name $(date -u +%H:%M:%S)"; { time $T "$@" --no-progress; } > $name.txt 2>&1; echo "=== $name done rc=$? $(date -u +%H:%M:%S)"; }
for m in resnet18 vgg16; do
  for n in 200 500 1000; do
    rm -f t-$m-$n-with.db t-$m-$n-without.db
    run $m-$n-with tune --model $m --trials $n --compare onnxruntime,eager --db t-$m-$n-with.db --out $m-$n-with.json
    run $m-$n-without tune --model $m --trials $n --compare onnxruntime,eager --no-transfer --db t-$m-$n-without.db --out $m-$n-without.json
  done
done
