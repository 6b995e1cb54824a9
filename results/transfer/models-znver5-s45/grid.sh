#!/bin/bash
# issue 19 (stop 45, znver5): the one cell of stop 44's 200/500/1,000 x with/without grid it did not finish,
# VGG-16 at 1,000 with transfer (the shipped prior plus within-run transfer); empty database, one run, nothing
# else running, the same command as results/transfer/models-znver5-s44/grid.sh
cd /work/runs/s45/transfer
TT=/work/main/.venv/bin/tensortune
lscpu | grep "Model name"; grep -m2 "family\|model" /proc/cpuinfo; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
M=vgg16; N=1000; MODE=with
rm -f $M-$N-$MODE.db*
echo "== $M $N $MODE  start $(date -u +%H:%M:%S)"
$TT tune --model $M --trials $N --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
  --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
echo "   rc $?  end $(date -u +%H:%M:%S)"
grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-$N-$MODE.txt
grep "tensortune   \|ONNX Runtime   \|sgemm" $M-$N-$MODE.txt
