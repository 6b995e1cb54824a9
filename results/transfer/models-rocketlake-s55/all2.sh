#!/bin/bash
# issue 19, stop 55 (Intel Xeon, LLVM rocketlake): the whole-model 5x cells on the code after 3cd6699 (sources fade
# on 64 measurements, not the round of 16), three tuning runs each (seeds 0, 1, 2), sequential, nothing else running.
# ResNet-18 200 with (seeds 0-2), 1,000 without (seeds 1, 2; seed 0 is stop 54's run: the --no-transfer path has
# not changed since), then VGG-16 200 with (seeds 0-2) against stop 51's and stop 54's... 1,000-without builds,
# then ResNet-18 500 and 1,000 with (seed 0) while time allows. Each model's libraries timed in fresh processes,
# 21 interleaved rounds with ONNX Runtime.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s55
W=/work/runs/s55/models
export TVM_NUM_THREADS=2
lscpu | grep "Model name"; grep -m3 "family\|model" /proc/cpuinfo; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())" 2>/dev/null
git -C /work/main log --oneline -1
before() { [ "$(date -u +%H%M)" -lt "$1" ]; }
tune() {  # model budget mode seed
  M=$1; N=$2; MODE=$3; S=$4; FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
  NAME=$M-$N-$MODE-s$S
  cd $W; rm -f $NAME.db*
  echo "== $NAME  start $(date -u +%T)"
  $TT tune --model $M --trials $N $FLAG --seed $S --db $NAME.db --out $NAME.json --no-progress > $NAME.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $NAME.txt
  grep "learned from" $NAME.txt | head -2
  cp $NAME.json $NAME.txt $OUTR/
  rm -f lib-$NAME.so lib-$NAME.json
  $TT build --model $M --seed $S --db $NAME.db --out lib-$NAME.so 2>&1 | tail -1
  cp lib-$NAME.json $OUTR/ 2>/dev/null
}
interleave() {  # model NAME=lib ...
  M=$1; shift; cd $W
  echo "== $M interleaved start $(date -u +%T)"
  $P $R/models-znver3-s39/multi.py $M 21 "$@" 2>&1 | grep -v "Scope Loaded"
  echo "   end $(date -u +%T)"
}
S54=/work/runs/s54/models
S51=/work/runs/s51/models
# (all.sh ran the three 200-with tunes, then its builds of seeds 1 and 2 failed: `tensortune build` needs --seed;
# this is all.sh with that fixed, building those two from their databases and going on from 1,000 without)
for S in 1 2; do cd $W; $TT build --model resnet18 --seed $S --db resnet18-200-with-s$S.db --out lib-resnet18-200-with-s$S.so 2>&1 | tail -1; cp lib-resnet18-200-with-s$S.json $OUTR/; done
for S in 1 2; do tune resnet18 1000 without $S; done
interleave resnet18 200-with-s0=lib-resnet18-200-with-s0.so 200-with-s1=lib-resnet18-200-with-s1.so \
  200-with-s2=lib-resnet18-200-with-s2.so 1000-without-s0=$S54/lib-resnet18-1000-without.so \
  1000-without-s1=lib-resnet18-1000-without-s1.so 1000-without-s2=lib-resnet18-1000-without-s2.so \
  200-with-s54=$S54/lib-resnet18-200-with.so
# held-out L3-L5 live at 120 (autotvm only: chameleon's strategy did not change), its own directory
before 1440 && (cd $R/loo-live-rocketlake-s55 && ./run.sh)
for S in 0 1 2; do before 1450 && tune vgg16 200 with $S; done
ls $W/lib-vgg16-200-with-s*.so >/dev/null 2>&1 && interleave vgg16 \
  $(for S in 0 1 2; do [ -f $W/lib-vgg16-200-with-s$S.so ] && echo 200-with-s$S=lib-vgg16-200-with-s$S.so; done) \
  1000-without-s51=$S51/lib-vgg16-1000-without.so 200-with-s54=$S54/lib-vgg16-200-with.so
before 1505 && tune resnet18 500 with 0
before 1505 && tune resnet18 1000 with 0
[ -f $W/lib-resnet18-500-with-s0.so ] && interleave resnet18 200-with-s0=lib-resnet18-200-with-s0.so \
  500-with-s0=lib-resnet18-500-with-s0.so \
  $( [ -f $W/lib-resnet18-1000-with-s0.so ] && echo 1000-with-s0=lib-resnet18-1000-with-s0.so) \
  200-without-s54=$S54/lib-resnet18-200-without.so 500-without-s54=$S54/lib-resnet18-500-without.so \
  1000-without-s0=$S54/lib-resnet18-1000-without.so
echo "== all done $(date -u +%T)"
