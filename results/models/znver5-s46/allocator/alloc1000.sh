#!/bin/bash
# issue 14 (stop 46, znver5): as alloc.sh, ResNet-18 at 1,000 (stop 42's 1,000 database against a new run)
cd /work/runs/s46/alloc
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo
/work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
git -C /work/main log --oneline -1
T=/work/main/.venv/bin/tensortune
date -u +"start r18 1000 %F %T UTC"
/usr/bin/time -f "%e s wall" $T tune --model resnet18 --trials 1000 --confirm-top 3 --compare onnxruntime --rounds 15 \
  --db r18-1000-new.db --out r18-1000-new --no-progress > r18-1000-new.log 2>&1
date -u +"builds %F %T UTC"
for v in old new; do $T build --model resnet18 --db r18-1000-$v.db --out r18-1000-$v.so > build-r18-1000-$v.log 2>&1; done
date -u +"timing %F %T UTC"
TVM_NUM_THREADS=2 /work/main/.venv/bin/python /work/main/results/transfer/models-znver3-s39/multi.py resnet18 21 \
  stop42=r18-1000-old.so stop46=r18-1000-new.so 2>&1 | grep -v "Warning: Scope Loaded" > multi-r18-1000.txt
/work/main/.venv/bin/python /work/runs/s46/alloc/shares.py r18-1000-old.db r18-1000-new.db > shares-r18-1000.txt
date -u +"end %F %T UTC"
