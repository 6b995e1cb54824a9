#!/usr/bin/env bash
# issue 19 on znver5: 200 with transfer (shipped corpus + within-run) against 1,000 without; empty databases
set -u
cd /work/runs/s30
T=/work/main/.venv/bin/tensortune
run() { name=$1; shift; echo "=== $name $(date -u +%H:%M:%S)"; { time $T "$@" --no-progress; } > $name.txt 2>&1; echo "=== $name done rc=$? $(date -u +%H:%M:%S)"; }
run r18-200-with tune --model resnet18 --trials 200 --compare onnxruntime,eager --db t-r18-200-with.db --out r18-200-with.json
run r18-200-without tune --model resnet18 --trials 200 --compare onnxruntime,eager --no-transfer --db t-r18-200-without.db --out r18-200-without.json
run r18-1000-without tune --model resnet18 --trials 1000 --compare onnxruntime,eager --no-transfer --db t-r18-1000-without.db --out r18-1000-without.json
run vgg16-200-with tune --model vgg16 --trials 200 --compare onnxruntime,eager --db t-vgg16-200-with.db --out vgg16-200-with.json
run vgg16-1000-without tune --model vgg16 --trials 1000 --compare onnxruntime,eager --no-transfer --db t-vgg16-1000-without.db --out vgg16-1000-without.json
