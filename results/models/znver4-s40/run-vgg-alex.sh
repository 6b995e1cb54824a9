#!/bin/bash
# issue 14's report on Zen 4: VGG-16 and AlexNet at 2,000, empty databases, default transfer, one after the other
cd /work/runs/s40
T=/work/main/.venv/bin/tensortune
for M in vgg16 alexnet; do
  echo "== $M start $(date -u +%T)"
  /usr/bin/time -v $T tune --model $M --trials 2000 --compare onnxruntime,frozen,eager,untuned --rounds 15 \
     --confirm-top 0 --db $M-2000.db --out $M-2000.json --no-progress > $M-2000.log 2> $M-2000.time
  echo "   end $(date -u +%T) rc $?"
done
