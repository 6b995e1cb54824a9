#!/bin/bash
# (run.sh) stop 56, after the twin change (transfer/prior.py TWINS): ResNet-18 200 with transfer, seeds 0-2, then
# one interleaved timing set of those three builds against stop 55's 200-with builds (the code before, seeds 1-2,
# and stop 54's seed 0) and the three 1,000-without builds (stops 54-55, seeds 0-2); then ResNet-18 500 and 1,000
# with transfer (seed 0) timed against stop 54's 500/1,000 builds of both kinds.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s56
W=/work/runs/s56/models
S55=/work/runs/s55/models
S54=/work/runs/s54/models
export TVM_NUM_THREADS=2
git -C /work/main log --oneline -1
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
for S in 0 1 2; do tune resnet18 200 with $S t; done
interleave resnet18 $(for S in 0 1 2; do echo 200-with-twins-s$S=lib-resnet18-200-with-s${S}t.so; done) \
  200-with-before-s0=$S54/lib-resnet18-200-with.so 200-with-before-s1=$S55/lib-resnet18-200-with-s1r.so \
  200-with-before-s2=$S55/lib-resnet18-200-with-s2r.so \
  1000-without-s0=$S54/lib-resnet18-1000-without.so 1000-without-s1=$S55/lib-resnet18-1000-without-s1.so \
  1000-without-s2=$S55/lib-resnet18-1000-without-s2.so
echo "== resnet18 200 done $(date -u +%T)"
tune resnet18 500 with 0 t
tune resnet18 1000 with 0 t
interleave resnet18 500-with-twins=lib-resnet18-500-with-s0t.so 1000-with-twins=lib-resnet18-1000-with-s0t.so \
  500-with-before=$S54/lib-resnet18-500-with.so 1000-with-before=$S54/lib-resnet18-1000-with.so \
  500-without=$S54/lib-resnet18-500-without.so 1000-without=$S54/lib-resnet18-1000-without.so
echo "== all done $(date -u +%T)"
