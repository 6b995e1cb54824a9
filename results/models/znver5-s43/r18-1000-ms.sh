#!/bin/bash
# issue 14 (stop 43, znver5): ResNet-18 at 1,000 against MetaSchedule at the same budget and every peer, one run,
# nothing else running. tensortune's 1,000 measurements are stop 42's (same machine, same day: r18-1000 there,
# 279 s of tuning, --confirm-top 3), resumed from a copy of its database; MetaSchedule tunes from scratch.
cd /work/runs/s43/ms
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 1000 --confirm-top 3 \
  --compare metaschedule,onnxruntime,frozen,eager,untuned --rounds 15 --db r18-1000.db --out r18-1000 --no-progress
date -u +"end %F %T UTC"
