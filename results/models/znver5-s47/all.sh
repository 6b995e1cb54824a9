#!/bin/bash
# stop 47: VGG-16 and AlexNet at 2,000 and ResNet-18 at 1,000 with Winograd (--winograd auto), each from an
# empty database, one after the other; then each build and MetaSchedule's stored run at the same budget
# (stops 43-45, direct convs) as libraries, timed in fresh processes interleaved with ONNX Runtime
set -u
cd /work/runs/s47/all
PY=/work/main/.venv/bin/python
TT=/work/main/.venv/bin/tensortune
R=/work/main/results/models/znver5-s47
$PY -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"; grep -m1 "model name" /proc/cpuinfo
run() {  # model trials ms_work_dir
  m=$1; n=$2; ms=$3
  /usr/bin/time -v $TT tune --model $m --trials $n --confirm-top 3 --compare onnxruntime,frozen,eager,untuned \
    --rounds 15 --db $m-$n-wino.db --out $m-$n-wino.json --no-progress > $m-$n-wino.log 2>&1
  $TT build --model $m --db $m-$n-wino.db --out $m-$n-wino.so > $m-$n-cmp.log 2>&1
  PYTHONPATH=/work/main/src $PY $R/ms_lib.py $ms $m-$n-ms.so $m 2>&1 | grep -v "Scope Saving" >> $m-$n-cmp.log
  PYTHONPATH=/work/main/src $PY /work/main/results/transfer/models-znver3-s39/multi.py $m 15 \
    tensortune-winograd=$m-$n-wino.so metaschedule=$m-$n-ms.so 2>&1 | grep -v "Scope Loaded" >> $m-$n-cmp.log
}
run vgg16 2000 /work/runs/s45/ms/tensortune-vgg16/metaschedule-2000
run alexnet 2000 /work/runs/s44/ms/tensortune-alexnet/metaschedule-2000
run resnet18 1000 /work/runs/s43/ms/tensortune-resnet18/metaschedule-1000
