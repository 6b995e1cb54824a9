#!/bin/bash
# stop 47: tensortune's ResNet-18 (Winograd, 2,000) and MetaSchedule's stored ResNet-18 run (2,000, stops 45-46,
# direct convs on the same blocked layout) as libraries, timed in fresh processes interleaved with ONNX Runtime
cd "$(dirname "$0")"
PY=/work/main/.venv/bin/python
$PY -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"; grep -m1 "model name" /proc/cpuinfo
/work/main/.venv/bin/tensortune build --model resnet18 --db ../r18/r18-2000-wino.db --out wino.so
$PY ms_lib.py /work/runs/s45/r18ms/tensortune-resnet18/metaschedule-2000 ms.so
$PY /work/main/results/transfer/models-znver3-s39/multi.py resnet18 15 tensortune-winograd=wino.so metaschedule=ms.so
