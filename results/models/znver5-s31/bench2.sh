#!/usr/bin/env bash
# one run after another, nothing else running; console output beside each report
set -u
cd /work/runs/s31b
T=/work/main/.venv/bin/tensortune
run() { name=$1; shift; echo "=== $name $(date -u +%H:%M:%S)"; { time $T "$@" --no-progress; } > $name.txt 2>&1; echo "=== $name done rc=$? $(date -u +%H:%M:%S)"; }
run vgg16-2000 tune --model vgg16 --trials 2000 --compare onnxruntime,frozen,eager --db vgg16.db --out vgg16-2000.json
run alexnet-2000 tune --model alexnet --trials 2000 --compare onnxruntime,frozen,eager --db alexnet.db --out alexnet-2000.json
