#!/bin/bash
# run3.sh continued: ResNet-18's interleaved timing (its libraries are built), then VGG-16 as in run3.sh
cd /work/runs/s39/final
P=/work/main/.venv/bin/python
M=resnet18
echo "== $M interleaved start $(date -u +%T)"
TVM_NUM_THREADS=2 $P ../multi.py $M 15 s37-200-with=$M-transfer-$M-200-with.so s37-1000-without=$M-transfer-$M-1000-without.so \
   s39-200-with=$M-final-$M-200-with.so 2>&1 | grep -v "Scope Loaded"
echo "   end $(date -u +%T)"
MODELS=vgg16 ./run3.sh
