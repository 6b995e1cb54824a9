#!/bin/bash
# (run2.sh) stop 56: waits for run.sh, then VGG-16 1,000 with transfer (seed 0; VGG-16 has no twins, so this is
# the with-transfer path of stops 54-55), timed in one interleaved set against stop 51's 1,000-without build and
# stop 55's three 200-with builds (seeds 0-2).
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s56
W=/work/runs/s56/models
S55=/work/runs/s55/models
S51=/work/runs/s51/models
export TVM_NUM_THREADS=2
while pgrep -f models-rocketlake-s56/run.sh > /dev/null; do sleep 10; done
git -C /work/main log --oneline -1
cd $W; NAME=vgg16-1000-with-s0; rm -f $NAME.db*
echo "== $NAME  start $(date -u +%T)"
$TT tune --model vgg16 --trials 1000 --seed 0 --db $NAME.db --out $NAME.json --no-progress > $NAME.txt 2>&1
echo "   rc $?  end $(date -u +%T)"
grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $NAME.txt
cp $NAME.json $NAME.txt $OUTR/
$TT build --model vgg16 --seed 0 --db $NAME.db --out lib-$NAME.so 2>&1 | tail -1
cp lib-$NAME.json $OUTR/ 2>/dev/null
echo "== vgg16 interleaved start $(date -u +%T)"
$P $R/models-znver3-s39/multi.py vgg16 21 1000-with-s0=lib-$NAME.so 1000-without-s51=$S51/lib-vgg16-1000-without.so \
  $(for S in 0 1 2; do echo 200-with-s$S=$S55/lib-vgg16-200-with-s$S.so; done) 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
