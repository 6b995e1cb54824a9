#!/usr/bin/env bash
# one run after another, nothing else running; console output beside each report
set -u
cd /work/runs/s31b
T=/work/main/.venv/bin/tensortune
run() { name=$1; shift; echo "=== $name $(date -u +%H:%M:%S)"; { time $T "$@" --no-progress; } > $name.txt 2>&1; echo "=== $name done rc=$? $(date -u +%H:%M:%S)"; }
run r18-1000 tune --model resnet18 --trials 1000 --compare onnxruntime,frozen,eager --db r18.db --out r18-1000.json
run r18-2000 tune --model resnet18 --trials 2000 --compare onnxruntime,frozen,eager --db r18.db --out r18-2000.json
