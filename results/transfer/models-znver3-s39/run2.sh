#!/bin/bash
# VGG-16 databases re-timed in turn (A-B-C, twice): stop 37's 200-with (equal first rounds), stop 37's
# 1000-without, stop 39's 200-with (share-based first rounds); nothing else running
cd /work/runs/s39/pairs
T=/work/main/.venv/bin/tensortune
while pgrep -f run.sh > /dev/null; do sleep 5; done
for k in 1 2; do
  for D in /work/runs/s37/transfer/vgg16-200-with.db /work/runs/s37/transfer/vgg16-1000-without.db vgg16-200-with.db; do
    n=$(basename $(dirname $D))-$(basename $D .db)-$k
    echo "== retime $D start $(date -u +%T)"
    $T profile --model vgg16 --db $D --compare onnxruntime --rounds 15 --out $n.json > $n.txt 2>&1
    echo "   rc $?  end $(date -u +%T)"; grep -E "^  (tensortune|PyTorch|ONNX)|sgemm" $n.txt
  done
done
