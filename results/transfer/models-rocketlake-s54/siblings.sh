#!/bin/bash
# issue 19, stop 54: ResNet-18 with transfer again, on the sibling change (transfer/siblings.py; run from a
# worktree of it, /work/wt-sib, with PYTHONPATH), at 200, 500 and 1,000 measurements; then its three builds, the
# three with-transfer builds of all.sh (before the change) and the three without timed interleaved with ONNX
# Runtime in fresh processes. Sequential, nothing else running.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s54
export TVM_NUM_THREADS=2 PYTHONPATH=/work/wt-sib/src
$P -c "import tensortune, tvm; print(tensortune.__file__, tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/wt-sib log --oneline -1; git -C /work/wt-sib status --short | grep -v "^??"
mkdir -p /work/runs/s54/sib; cd /work/runs/s54/sib
for N in 200 500 1000; do
  rm -f resnet18-$N-sib.db*
  echo "== resnet18 $N with (siblings)  start $(date -u +%T)"
  $TT tune --model resnet18 --trials $N --compare onnxruntime,eager --rounds 15 --db resnet18-$N-sib.db \
    --out resnet18-$N-sib.json --no-progress > resnet18-$N-sib.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' resnet18-$N-sib.txt
  grep "learns\|siblings:\|tensortune   \|tensortune (\|ONNX Runtime   \|PyTorch eager  \|sgemm" resnet18-$N-sib.txt | head -8
  cp resnet18-$N-sib.json resnet18-$N-sib.txt $OUTR/
  $TT build --model resnet18 --db resnet18-$N-sib.db --out lib-resnet18-$N-sib.so 2>&1 | tail -1
  cp lib-resnet18-$N-sib.json $OUTR/
done
M=/work/runs/s54/models
echo "== resnet18 interleaved start $(date -u +%T)"
$P $R/models-znver3-s39/multi.py resnet18 21 200-sib=lib-resnet18-200-sib.so 500-sib=lib-resnet18-500-sib.so \
  1000-sib=lib-resnet18-1000-sib.so 200-with=$M/lib-resnet18-200-with.so 500-with=$M/lib-resnet18-500-with.so \
  1000-with=$M/lib-resnet18-1000-with.so 200-without=$M/lib-resnet18-200-without.so \
  500-without=$M/lib-resnet18-500-without.so 1000-without=$M/lib-resnet18-1000-without.so 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
