#!/bin/bash
# issue 19, stop 51 (Intel Xeon, LLVM rocketlake): what stop 50 left unmeasured on this CPU. Sequential, nothing
# else running: VGG-16 200 with against 1,000 without (timed interleaved), L3-L6 held out live with this CPU's
# tables (L1, L2, L7, L8) and corpus as sources, then the 500 budgets while time allows (cutoff: a step starts
# only if the clock is before the time given for it).
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
export TVM_NUM_THREADS=2
lscpu | grep "Model name"; grep -m3 "family\|model" /proc/cpuinfo; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
before() { [ "$(date -u +%H%M)" -lt "$1" ]; }
tune() {  # model budget mode
  M=$1; N=$2; MODE=$3; FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
  cd /work/runs/s51/models; rm -f $M-$N-$MODE.db*
  echo "== $M $N $MODE  start $(date -u +%T)"
  $TT tune --model $M --trials $N $FLAG --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
    --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-$N-$MODE.txt
  grep "learns\|tensortune   \|tensortune (\|ONNX Runtime   \|PyTorch eager  \|sgemm" $M-$N-$MODE.txt | head -8
  cp $M-$N-$MODE.json $M-$N-$MODE.txt $R/models-rocketlake-s51/
}
interleave() {  # model runs...
  M=$1; shift; cd /work/runs/s51/models; L=""
  for RUN in "$@"; do
    rm -f lib-$M-$RUN.so lib-$M-$RUN.json
    $TT build --model $M --db $M-$RUN.db --out lib-$M-$RUN.so 2>&1 | tail -1
    L="$L $RUN=lib-$M-$RUN.so"
  done
  echo "== $M interleaved start $(date -u +%T)"
  $P /work/main/results/transfer/models-znver3-s39/multi.py $M 21 $L 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
}
tune vgg16 200 with
tune vgg16 1000 without
interleave vgg16 200-with 1000-without
cd /work/runs/s51/loo-live
echo "== loo live start $(date -u +%T)"
$TT bench transfer --tables $R/tables-rocketlake --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out . --no-progress > run.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -30 run.log; cp report.md results.json run.log $R/loo-live-rocketlake-s51/
before 0150 && tune resnet18 500 with
before 0150 && tune resnet18 500 without
before 0150 && interleave resnet18 500-with 500-without
echo "== all done $(date -u +%T)"
