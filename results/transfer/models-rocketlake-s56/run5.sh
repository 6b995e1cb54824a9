#!/bin/bash
# (run5.sh) stop 56: run4's set had a start-order effect (its first three libraries, started first, ran 14.4, 12.3
# and 10.8 ms there, and 10.3, 10.1 in a 5-round check of two of them right after); so the 5x cell again with six
# libraries, alternating: this stop's ResNet-18 200 with (tuned with twins, built with twin sharing) and the
# 1,000-without runs built with twin sharing, seeds 0-2.
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
export TVM_NUM_THREADS=2
cd /work/runs/s56/models
$P $R/models-znver3-s39/multi.py resnet18 21 $(for S in 0 1 2; do
  echo 200-with-s$S=lib-resnet18-200-with-s${S}w-shared.so 1000-without-s$S=lib-resnet18-1000-without-s$S-shared.so; done) \
  2>&1 | grep -v "Scope Loaded"
