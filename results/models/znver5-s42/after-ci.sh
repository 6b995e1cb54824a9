#!/bin/bash
# stop 42 (znver5), after CI: (1) ResNet-18's 2,000 and 1,000 builds as libraries, timed in fresh processes
# interleaved with ONNX Runtime (stop 39's multi.py)
cd /work/runs/s42
date -u +"start %F %T UTC"
/work/main/.venv/bin/tensortune build --model resnet18 --db r18.db --out r18-2000.so > build-2000.log 2>&1
/work/main/.venv/bin/tensortune build --model resnet18 --db resnet18-1000.db --out r18-1000.so > build-1000.log 2>&1
TVM_NUM_THREADS=2 /work/main/.venv/bin/python /work/main/results/transfer/models-znver3-s39/multi.py resnet18 15 \
  r18-2000=r18-2000.so r18-1000=r18-1000.so > multi-r18.txt 2>&1
date -u +"end %F %T UTC"
