#!/bin/bash
# ResNet-18 at 2,000 with --conv-space tails (empty database, default transfer), then both 2,000 databases
# (stop 37's default space, this one) re-timed against ONNX Runtime, A-B-A, nothing else running
cd /work/runs/s38/tails
T=/work/main/.venv/bin/tensortune
lscpu | grep "Model name"; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
echo "== tune tails start $(date -u +%T)"
rm -f r18-tails.db*
$T tune --model resnet18 --trials 2000 --conv-space tails --compare onnxruntime --rounds 15 --db r18-tails.db \
  --out r18-tails-2000.json --no-progress > r18-tails-2000.txt 2>&1
echo "   rc $? end $(date -u +%T)"; tail -5 r18-tails-2000.txt
for step in "full1 /work/runs/s37/r18.db full" "tails r18-tails.db tails" "full2 /work/runs/s37/r18.db full"; do
  set -- $step
  echo "== profile $1 start $(date -u +%T)"
  $T profile --model resnet18 --db $2 --conv-space $3 --compare onnxruntime --rounds 15 --out profile-$1.json > profile-$1.txt 2>&1
  echo "   rc $? end $(date -u +%T)"; grep -E "^  (tensortune|ONNX)|sgemm" profile-$1.txt
done
