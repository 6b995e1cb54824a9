#!/bin/bash
# stop 47: the ResNet-18 Winograd run at 2,000 (r18-2000-wino.db) built, profiled and timed in one run beside
# MetaSchedule at the same budget (its stored 2,000-measurement run of stops 45-46 on the direct-conv graph,
# copied into this run's work dir, so it resumes with nothing left to tune), ONNX Runtime, PyTorch and TVM untuned
cd "$(dirname "$0")"
grep -m1 "model name" /proc/cpuinfo; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
/work/main/.venv/bin/tensortune profile --model resnet18 --db r18-2000-wino.db \
  --compare metaschedule,onnxruntime,frozen,eager,untuned --rounds 15 --out r18-2000-wino-profile.json
