#!/bin/bash
# (all4.sh) stop 55, after f2ab1e4 (a whole-model run fades the sources on its round again, so its with-transfer path is stop
# 54's): all2.sh was stopped during the held-out L3-L5 run; this waits for that run, then VGG-16 200 with (seeds
# 0-2) against stop 51's 1,000-without build and stop 54's two 200-with builds, then ResNet-18 200 with seeds 1 and
# 2 on this code (seed 0 of it: stop 54's two runs), all ResNet-18 libraries of this stop and stop 54's in one set.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s55
W=/work/runs/s55/models
export TVM_NUM_THREADS=2
# all3.sh was stopped while it tuned VGG-16 200 with seed 1 (its time guards would have skipped ResNet-18's seed 2);
# this waits for that tune, builds it, and runs the rest of all3.sh without the guards.
while kill -0 20570 2>/dev/null; do sleep 5; done
echo "== vgg16-200-with-s1 tune ended $(date -u +%T)"
git -C /work/main log --oneline -1
before() { [ "$(date -u +%H%M)" -lt "$1" ]; }
tune() {  # model budget mode seed [suffix]
  M=$1; N=$2; MODE=$3; S=$4; FLAG=""; [ "$MODE" = without ] && FLAG="--no-transfer"
  NAME=$M-$N-$MODE-s$S$5
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
cd $W; NAME=vgg16-200-with-s1
grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $NAME.txt; grep "learned from" $NAME.txt | head -2
cp $NAME.json $NAME.txt $OUTR/
$TT build --model vgg16 --seed 1 --db $NAME.db --out lib-$NAME.so 2>&1 | tail -1; cp lib-$NAME.json $OUTR/
tune vgg16 200 with 2
interleave vgg16 \
  $(for S in 0 1 2; do [ -f $W/lib-vgg16-200-with-s$S.so ] && echo 200-with-s$S=lib-vgg16-200-with-s$S.so; done) \
  1000-without-s51=$S51/lib-vgg16-1000-without.so 200-with-s54=$S54/lib-vgg16-200-with.so \
  200-with-s54-2=/work/runs/s54/rep/lib-vgg16-200-with-2.so
for S in 1 2; do tune resnet18 200 with $S r; done
interleave resnet18 $(for S in 1 2; do [ -f $W/lib-resnet18-200-with-s${S}r.so ] && echo 200-with-s${S}r=lib-resnet18-200-with-s${S}r.so; done) \
  200-with-s54=$S54/lib-resnet18-200-with.so 200-with-s54-2=/work/runs/s54/rep/lib-resnet18-200-with-2.so \
  1000-without-s0=$S54/lib-resnet18-1000-without.so 1000-without-s1=lib-resnet18-1000-without-s1.so \
  1000-without-s2=lib-resnet18-1000-without-s2.so \
  fade64-200-with-s0=lib-resnet18-200-with-s0.so fade64-200-with-s1=lib-resnet18-200-with-s1.so \
  fade64-200-with-s2=lib-resnet18-200-with-s2.so
echo "== all done $(date -u +%T)"
