#!/bin/bash
# Final allocation code (cd69eba): 200 with transfer from empty databases; then stop 37's 200-with (equal first
# rounds) and 1000-without and this one built as libraries and timed in fresh processes, interleaved with ONNX
# Runtime (multi.py, 15 rounds). Nothing else running.
cd /work/runs/s39/final
T=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
lscpu | grep "Model name"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
for M in ${MODELS:-resnet18 vgg16}; do
  rm -f $M-200-with.db*
  echo "== $M 200 with  start $(date -u +%T)"
  $T tune --model $M --trials 200 --compare onnxruntime --rounds 15 --db $M-200-with.db --out $M-200-with.json --no-progress > $M-200-with.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"; grep -E "^  (tensortune|PyTorch|ONNX)|sgemm|measurements," $M-200-with.txt
  for D in /work/runs/s37/transfer/$M-200-with.db /work/runs/s37/transfer/$M-1000-without.db $M-200-with.db; do
    n=$(basename $(dirname $(readlink -f $D)))-$(basename $D .db)
    $T build --model $M --db $D --out $M-$n.so --force > build-$M-$n.txt 2>&1; echo "   build $n rc $?"
  done
  echo "== $M interleaved start $(date -u +%T)"
  TVM_NUM_THREADS=2 $P ../multi.py $M 15 s37-200-with=$M-transfer-$M-200-with.so s37-1000-without=$M-transfer-$M-1000-without.so \
     s39-200-with=$M-final-$M-200-with.so 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
done
