#!/usr/bin/env bash
# issue 19 on znver5 (stop 33), after schedule transfer kept vector width and register block (d262120):
# the 5x pair per model, 200 measurements with transfer (the shipped znver5 corpus + within-run transfer)
# against 1,000 without (--no-transfer), each on an empty database, the two interleaved
set -u
mkdir -p /work/runs/s33/models && cd /work/runs/s33/models
T=/work/main/.venv/bin/tensortune
run() { name=$1; shift; echo "=== $name $(date -u +%H:%M:%S)"; { time $T "$@" --no-progress; } > $name.txt 2>&1; echo "=== $name done rc=$? $(date -u +%H:%M:%S)"; }
for m in resnet18 vgg16; do
  rm -f t-$m-200-with.db t-$m-1000-without.db
  run $m-200-with tune --model $m --trials 200 --compare onnxruntime,eager --db t-$m-200-with.db --out $m-200-with.json
  run $m-1000-without tune --model $m --trials 1000 --compare onnxruntime,eager --no-transfer --db t-$m-1000-without.db --out $m-1000-without.json
done
# summary.md: in this directory, python3 ../models-znver5-s32/summary.py > summary.md (it reads the reports present)
