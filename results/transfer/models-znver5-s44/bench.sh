#!/bin/bash
# issue 19 (stop 44, znver5): the 5x pairs after share-based first rounds (stop 39), which Zen 5 had not measured:
# 200 measurements with transfer (shipped corpus + within-run) against 1,000 without (--no-transfer), empty
# databases, one run each, nothing else running; then each database as a library, timed in fresh processes
cd /work/runs/s44/transfer
TT=/work/main/.venv/bin/tensortune
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
for M in ${MODELS:-resnet18 vgg16}; do
  for RUN in "200 with" "1000 without"; do
    set -- $RUN; N=$1; MODE=$2
    FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
    rm -f $M-$N-$MODE.db*
    echo "== $M $N $MODE  start $(date -u +%H:%M:%S)"
    $TT tune --model $M --trials $N $FLAG --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
      --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
    echo "   rc $?  end $(date -u +%H:%M:%S)"
    tail -6 $M-$N-$MODE.txt
  done
done
# each database as a library, all timed in fresh processes interleaved with ONNX Runtime
P=/work/main/.venv/bin/python
for M in ${MODELS:-resnet18 vgg16}; do
  L=""
  for RUN in 200-with 1000-without; do
    $TT build --model $M --db $M-$RUN.db --out $M-$RUN.so --force 2>&1 | tail -1
    L="$L $RUN=$M-$RUN.so"
  done
  echo "== $M interleaved start $(date -u +%T)"
  TVM_NUM_THREADS=2 $P /work/main/results/transfer/models-znver3-s39/multi.py $M 21 $L 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
done
