#!/bin/bash
# issue 19, stop 54 (Intel Xeon, LLVM rocketlake): the whole-model grid on the code after stop 53's first-design and
# capped-source changes (c8eec34; src unchanged since). Sequential, nothing else running. ResNet-18: 200, 500, 1,000
# with and without transfer, then all six builds timed interleaved. VGG-16: 200 and 500 with and without, 1,000 with
# (while time allows), timed interleaved with stop 51's 1,000-without build (--no-transfer path unchanged since then:
# the src commits after it touch transfer/, the corpus and a refactor of the vector width).
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s54
export TVM_NUM_THREADS=2
lscpu | grep "Model name"; grep -m3 "family\|model" /proc/cpuinfo; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
git -C /work/main log --oneline -1
before() { [ "$(date -u +%H%M)" -lt "$1" ]; }
tune() {  # model budget mode
  M=$1; N=$2; MODE=$3; FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
  cd /work/runs/s54/models; rm -f $M-$N-$MODE.db*
  echo "== $M $N $MODE  start $(date -u +%T)"
  $TT tune --model $M --trials $N $FLAG --compare onnxruntime,eager --rounds 15 --db $M-$N-$MODE.db \
    --out $M-$N-$MODE.json --no-progress > $M-$N-$MODE.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-$N-$MODE.txt
  grep "learns\|tensortune   \|tensortune (\|ONNX Runtime   \|PyTorch eager  \|sgemm" $M-$N-$MODE.txt | head -8
  cp $M-$N-$MODE.json $M-$N-$MODE.txt $OUTR/
}
build() {  # model run
  cd /work/runs/s54/models; rm -f lib-$1-$2.so lib-$1-$2.json
  $TT build --model $1 --db $1-$2.db --out lib-$1-$2.so 2>&1 | tail -1
  cp lib-$1-$2.json $OUTR/ 2>/dev/null
}
interleave() {  # model NAME=lib ...
  M=$1; shift; cd /work/runs/s54/models
  echo "== $M interleaved start $(date -u +%T)"
  $P $R/models-znver3-s39/multi.py $M 21 "$@" 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
}
for N in 200 500 1000; do for MODE in with without; do tune resnet18 $N $MODE; build resnet18 $N-$MODE; done; done
interleave resnet18 200-with=lib-resnet18-200-with.so 200-without=lib-resnet18-200-without.so \
  500-with=lib-resnet18-500-with.so 500-without=lib-resnet18-500-without.so \
  1000-with=lib-resnet18-1000-with.so 1000-without=lib-resnet18-1000-without.so
for N in 200 500; do for MODE in with without; do tune vgg16 $N $MODE; build vgg16 $N-$MODE; done; done
L="200-with=lib-vgg16-200-with.so 200-without=lib-vgg16-200-without.so 500-with=lib-vgg16-500-with.so"
L="$L 500-without=lib-vgg16-500-without.so 1000-without-s51=/work/runs/s51/models/lib-vgg16-1000-without.so"
if before 1200; then tune vgg16 1000 with; build vgg16 1000-with; L="$L 1000-with=lib-vgg16-1000-with.so"; fi
interleave vgg16 $L
echo "== all done $(date -u +%T)"
