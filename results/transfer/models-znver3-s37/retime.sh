#!/bin/bash
# Re-time stop 37's VGG-16 transfer pair from their databases, one after the other, nothing else running.
cd /work/runs/s38
T=/work/main/.venv/bin/tensortune
for m in vgg16-200-with vgg16-1000-without; do
  echo "== $m start $(date -u +%T)" >> retime.log
  $T profile --model vgg16 --db /work/runs/s37/transfer/$m.db --compare onnxruntime,eager --rounds 15 --out $m-retime.json > $m-retime.txt 2>&1
  echo "   rc $? end $(date -u +%T)" >> retime.log
  grep -E "^  (tensortune|PyTorch|ONNX)|sgemm|WARNING" $m-retime.txt >> retime.log
done
