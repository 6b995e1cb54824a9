#!/bin/bash
# (grid.sh) stop 56, after CI, the rest of the grid on this CPU with this stop's code: VGG-16 1,000 with
# transfer (seed 0; VGG-16 has no twins, so stops 54-55's VGG-16 builds stand), timed against stop 51's 1,000
# without, stop 55's three 200-with and stop 54's 200-without and 500 builds. (Stop 54's ResNet-18 grid runs were
# to be built again with twin sharing after it; the session's time did not allow it.)
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s56
W=/work/runs/s56/models
S55=/work/runs/s55/models
S54=/work/runs/s54/models
S51=/work/runs/s51/models
export TVM_NUM_THREADS=2
git -C /work/main log --oneline -1
cd $W
NAME=vgg16-1000-with-s0; rm -f $NAME.db*
echo "== $NAME  start $(date -u +%T)"
$TT tune --model vgg16 --trials 1000 --seed 0 --db $NAME.db --out $NAME.json --no-progress > $NAME.txt 2>&1
echo "   rc $?  end $(date -u +%T)"
grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $NAME.txt
cp $NAME.json $NAME.txt $OUTR/
$TT build --model vgg16 --seed 0 --db $NAME.db --out lib-$NAME.so 2>&1 | tail -1
cp lib-$NAME.json $OUTR/ 2>/dev/null
echo "== vgg16 interleaved start $(date -u +%T)"
$P $R/models-znver3-s39/multi.py vgg16 21 1000-with=lib-$NAME.so 1000-without=$S51/lib-vgg16-1000-without.so \
  $(for S in 0 1 2; do echo 200-with-s$S=$S55/lib-vgg16-200-with-s$S.so; done) 200-without=$S54/lib-vgg16-200-without.so \
  500-with=$S54/lib-vgg16-500-with.so 500-without=$S54/lib-vgg16-500-without.so 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
