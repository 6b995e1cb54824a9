#!/bin/bash
# issue 14 (stop 46, znver5): the gradient allocator without setting resting tasks aside. ResNet-18 and VGG-16 at
# 2,000 from an empty database (default transfer: the shipped corpus), as stop 42's runs were; then the new and
# stop 42's databases built as libraries with the current code and timed in fresh processes, interleaved with
# ONNX Runtime (multi.py). Nothing else running.
cd /work/runs/s46/alloc
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
git -C /work/main log --oneline -1
T=/work/main/.venv/bin/tensortune
date -u +"start r18 %F %T UTC"
/usr/bin/time -f "%e s wall" $T tune --model resnet18 --trials 2000 --confirm-top 3 --compare onnxruntime --rounds 15 \
  --db r18-new.db --out r18-new --no-progress > r18-new.log 2>&1
date -u +"start vgg %F %T UTC"
/usr/bin/time -f "%e s wall" $T tune --model vgg16 --trials 2000 --confirm-top 3 --compare onnxruntime --rounds 15 \
  --db vgg-new.db --out vgg-new --no-progress > vgg-new.log 2>&1
date -u +"builds %F %T UTC"
for m in r18 vgg; do
  M=$([ $m = r18 ] && echo resnet18 || echo vgg16)
  for v in old new; do $T build --model $M --db $m-$v.db --out $m-$v.so > build-$m-$v.log 2>&1; done
done
date -u +"timing %F %T UTC"
M=/work/main/results/transfer/models-znver3-s39/multi.py
TVM_NUM_THREADS=2 /work/main/.venv/bin/python $M resnet18 21 stop42=r18-old.so stop46=r18-new.so > multi-r18.txt 2>&1
TVM_NUM_THREADS=2 /work/main/.venv/bin/python $M vgg16 15 stop42=vgg-old.so stop46=vgg-new.so > multi-vgg.txt 2>&1
/work/main/.venv/bin/python /work/runs/s46/alloc/shares.py r18-old.db r18-new.db > shares-r18.txt
/work/main/.venv/bin/python /work/runs/s46/alloc/shares.py vgg-old.db vgg-new.db > shares-vgg.txt
date -u +"end %F %T UTC"
