#!/bin/bash
# issue 19's 5x pairs after share-based first rounds: 200 with transfer, empty databases, then the
# stop-37 1000-without databases and the new 200-with ones re-timed one after the other; nothing else running
cd /work/runs/s39/pairs
T=/work/main/.venv/bin/tensortune
lscpu | grep "Model name"; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
for M in resnet18 vgg16; do
  rm -f $M-200-with.db*
  echo "== $M 200 with  start $(date -u +%T)"
  $T tune --model $M --trials 200 --compare onnxruntime,eager --rounds 15 --db $M-200-with.db --out $M-200-with.json --no-progress > $M-200-with.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"; grep -E "^  (tensortune|PyTorch|ONNX)|sgemm|measurements," $M-200-with.txt
done
for M in resnet18 vgg16; do
  for D in /work/runs/s37/transfer/$M-1000-without.db $M-200-with.db; do
    n=$(basename $D .db)
    echo "== retime $M $D start $(date -u +%T)"
    $T profile --model $M --db $D --compare onnxruntime,eager --rounds 15 --out $n-retime.json > $n-retime.txt 2>&1
    echo "   rc $?  end $(date -u +%T)"; grep -E "^  (tensortune|PyTorch|ONNX)|sgemm" $n-retime.txt
  done
done
