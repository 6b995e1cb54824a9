#!/bin/bash
# issue 19 (stop 44, znver5): the rest of the 200/500/1,000 x with/without grid on current code (bench.sh ran
# 200 with and 1,000 without); empty databases, one run each, nothing else running, same command
cd /work/runs/s44/transfer
TT=/work/main/.venv/bin/tensortune
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
for M in resnet18 vgg16; do
  for RUN in "200 without" "500 with" "500 without" "1000 with"; do
    set -- $RUN; N=$1; MODE=$2
    FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
    rm -f $M-$N-$MODE.db*
    echo "== $M $N $MODE  start $(date -u +%H:%M:%S)"
    $TT tune --model $M --trials $N $FLAG --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
      --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
    echo "   rc $?  end $(date -u +%H:%M:%S)"
    grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-$N-$MODE.txt
    grep "tensortune   \|ONNX Runtime   \|sgemm" $M-$N-$MODE.txt
  done
done
