#!/bin/bash
# issue 14 (stop 46, znver5): ResNet-18 at 2,000, seed 1, the old allocator (code at 5333651 via PYTHONPATH) and the
# new one, empty databases, default transfer; then both built as libraries (current code) and timed in fresh
# processes interleaved with ONNX Runtime. Nothing else running.
cd /work/runs/s46/alloc
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
T=/work/main/.venv/bin/tensortune
date -u +"start old %F %T UTC"
PYTHONPATH=/tmp/oldsrc/src /usr/bin/time -f "%e s wall" $T tune --model resnet18 --trials 2000 --confirm-top 3 --seed 1 \
  --rounds 10 --db r18-s1-old.db --out r18-s1-old --no-progress > r18-s1-old.log 2>&1
date -u +"start new %F %T UTC"
/usr/bin/time -f "%e s wall" $T tune --model resnet18 --trials 2000 --confirm-top 3 --seed 1 \
  --rounds 10 --db r18-s1-new.db --out r18-s1-new --no-progress > r18-s1-new.log 2>&1
date -u +"builds %F %T UTC"
for v in old new; do $T build --model resnet18 --db r18-s1-$v.db --seed 1 --out r18-s1-$v.so > build-r18-s1-$v.log 2>&1; done
date -u +"timing %F %T UTC"
TVM_NUM_THREADS=2 /work/main/.venv/bin/python /work/main/results/transfer/models-znver3-s39/multi.py resnet18 21 \
  old=r18-s1-old.so new=r18-s1-new.so 2>&1 | grep -v "Warning: Scope Loaded" > multi-r18-s1.txt
/work/main/.venv/bin/python /work/runs/s46/alloc/shares.py r18-s1-old.db r18-s1-new.db > shares-r18-s1.txt
date -u +"end %F %T UTC"
