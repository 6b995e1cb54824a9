#!/bin/bash
# ResNet-18 at 2,000 on this CPU, peers in the same run (no MetaSchedule: ~90+ min), nothing else running
cd /work/runs/s37
date -u
lscpu | grep "Model name"; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
/work/main/.venv/bin/tensortune tune --model resnet18 --trials 2000 --compare onnxruntime,frozen,eager,untuned \
  --rounds 15 --db r18.db --out r18-2000.json --no-progress
date -u
