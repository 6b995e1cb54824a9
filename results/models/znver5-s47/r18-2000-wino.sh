#!/bin/bash
# stop 47: ResNet-18 at 2,000 with Winograd (default --winograd auto), from an empty database
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 2000 --confirm-top 3 \
  --compare onnxruntime,frozen,eager,untuned --rounds 15 --db r18-2000-wino.db --out r18-2000-wino.json --no-progress
