#!/bin/bash
# issue 14 (stop 45, znver5): ResNet-18 at 2,000 against MetaSchedule at the same budget and every peer, one run,
# nothing else running. tensortune's 2,000 measurements are stop 42's on this kind of machine (Zen 5,
# --confirm-top 3), resumed from a copy of its database; MetaSchedule tunes from scratch (resumable: its work dir
# tensortune-resnet18/metaschedule-2000 keeps its records; a rerun of this script continues it).
cd /work/runs/s45/r18ms
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 2000 --confirm-top 3 \
  --compare metaschedule,onnxruntime,frozen,eager,untuned --rounds 15 --db r18-2000.db --out r18-2000 --no-progress
date -u +"end %F %T UTC"
