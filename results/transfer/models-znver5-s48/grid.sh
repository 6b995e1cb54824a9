#!/bin/bash
# issue 19 (stop 48, znver5): the whole-model 200/500/1,000 x with/without grid with Winograd convs (the default
# since stop 47) and the corpus rebuilt with Winograd records; empty databases, one run each, nothing else
# running, same command as stops 44-45; then the 5x pair (200 with, 1,000 without) as libraries timed in fresh
# processes interleaved with ONNX Runtime
cd /work/runs/s48/grid
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
for M in ${MODELS:-resnet18 vgg16}; do
  for RUN in "200 with" "1000 without" "200 without" "500 with" "500 without" "1000 with"; do
    set -- $RUN; N=$1; MODE=$2
    FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
    rm -f $M-$N-$MODE.db*
    echo "== $M $N $MODE  start $(date -u +%H:%M:%S)"
    $TT tune --model $M --trials $N $FLAG --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
      --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
    echo "   rc $?  end $(date -u +%H:%M:%S)"
    grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-$N-$MODE.txt
    grep "learns\|tensortune   \|ONNX Runtime   \|PyTorch eager  \|sgemm" $M-$N-$MODE.txt | head -8
  done
  L=""
  for RUN in 200-with 1000-without; do
    $TT build --model $M --db $M-$RUN.db --out lib-$M-$RUN.so 2>&1 | tail -1
    L="$L $RUN=lib-$M-$RUN.so"
  done
  echo "== $M interleaved start $(date -u +%T)"
  TVM_NUM_THREADS=2 $P /work/main/results/transfer/models-znver3-s39/multi.py $M 21 $L 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
done
