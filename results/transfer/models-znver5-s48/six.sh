#!/bin/bash
# issue 19 (stop 48, znver5): every cell of the grid as a library, all six of a model and ONNX Runtime timed in
# fresh processes interleaved (multi.py, 21 rounds): the tune runs' own timings fall in different phases of this
# VM (memory-bound kernels ran 1.5-1.7x slower "alone now" than tuned in some runs and not in others)
cd /work/runs/s48/grid
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
for M in ${MODELS:-resnet18 vgg16}; do
  L=""
  for RUN in 200-with 200-without 500-with 500-without 1000-with 1000-without; do
    [ -f lib-$M-$RUN.so ] || $TT build --model $M --db $M-$RUN.db --out lib-$M-$RUN.so 2>&1 | tail -1
    L="$L $RUN=lib-$M-$RUN.so"
  done
  echo "== $M six interleaved start $(date -u +%T)"
  TVM_NUM_THREADS=2 $P /work/main/results/transfer/models-znver3-s39/multi.py $M 21 $L 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
done
