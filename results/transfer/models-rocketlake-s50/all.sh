#!/bin/bash
# issue 19, stop 50: first run on an Intel CPU (LLVM rocketlake): this CPU's corpus, whole ResNet-18 pair,
# L1/L2/L7/L8 tables and leave-one-layer-out replay on them. Sequential, nothing else running.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
export TVM_NUM_THREADS=2
lscpu | grep "Model name"; grep -m3 "family\|model" /proc/cpuinfo; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
if [ -z "$SKIP_CORPUS" ]; then
echo "== corpus build start $(date -u +%T)"
cd /work/runs/s50/corpus
( time $TT corpus build --db corpus.db --no-progress ) > $R/corpus-build-rocketlake.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -5 $R/corpus-build-rocketlake.log
fi
cd /work/runs/s50/models
M=resnet18
for RUN in "200 with" "1000 without" "200 foreign"; do
  set -- $RUN; N=$1; MODE=$2
  FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
  [ "$MODE" = foreign ] && FLAG="--corpus /work/main/src/tensortune/transfer/data/corpus-llvm-znver5.json.gz"
  rm -f $M-$N-$MODE.db*
  echo "== $M $N $MODE  start $(date -u +%T)"
  $TT tune --model $M --trials $N $FLAG --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
    --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-$N-$MODE.txt
  grep "learns\|tensortune   \|tensortune (\|ONNX Runtime   \|PyTorch eager  \|sgemm" $M-$N-$MODE.txt | head -8
done
L=""
for RUN in 200-with 1000-without 200-foreign; do
  rm -f lib-$M-$RUN.so lib-$M-$RUN.json
  $TT build --model $M --db $M-$RUN.db --out lib-$M-$RUN.so 2>&1 | tail -1
  L="$L $RUN=lib-$M-$RUN.so"
done
echo "== $M interleaved start $(date -u +%T)"
$P /work/main/results/transfer/models-znver3-s39/multi.py $M 21 $L 2>&1 | grep -v "Scope Loaded"
echo "   end $(date -u +%T)"
cd /work/runs/s50/gt
echo "== groundtruth start $(date -u +%T)"
( time $TT groundtruth --layers L1,L2,L7,L8 --db gt.db --out $R/tables-rocketlake --no-progress ) > gt.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -8 gt.log
cd /work/runs/s50/loo
echo "== loo replay start $(date -u +%T)"
( time $TT bench transfer --tables $R/tables-rocketlake --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
   --seeds 0,1,2,3,4,5,6,7,8 --trials 120 --features knobs+corpus --out . --no-progress ) > loo.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -30 loo.log
