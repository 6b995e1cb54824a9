#!/bin/bash
# (run4.sh) stop 56: ResNet-18 200 with transfer tuned by the code before this stop (23e140d, a worktree at
# /work/before, run with PYTHONPATH) and by this stop's (twins in the search, main), alternating per seed (0-2),
# so both see the same state of the machine. Then builds: the before-tuned runs by the before code (each task its
# own best: "-own") and by this stop's (twins share their best at the build: "-shared"), the twin-tuned runs by
# this stop's, and the three 1,000-without runs (stops 54-55, copies of their databases) by this stop's; then one
# interleaved timing set of all fifteen libraries (with the 1,000-without builds as they were) and ONNX Runtime.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s56
W=/work/runs/s56/models
S55=/work/runs/s55/models
S54=/work/runs/s54/models
BEFORE=/work/before/src
export TVM_NUM_THREADS=2
git -C /work/main log --oneline -1; git -C /work/before log --oneline -1
tune() {  # name seed [PYTHONPATH]
  cd $W; rm -f $1.db*
  echo "== $1  start $(date -u +%T)"
  PYTHONPATH=$3 $TT tune --model resnet18 --trials 200 --seed $2 --db $1.db --out $1.json --no-progress > $1.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $1.txt
  cp $1.json $1.txt $OUTR/
}
build() {  # db seed lib [PYTHONPATH]
  cd $W; rm -f $3 ${3%.so}.json
  echo "== build $3 from $1 (seed $2) $(date -u +%T)"
  PYTHONPATH=$4 $TT build --model resnet18 --seed $2 --db $1 --out $3 > ${3%.so}.txt 2>&1; tail -1 ${3%.so}.txt
  grep -o "([0-9]* of them a config measured on a twin[^)]*)" ${3%.so}.txt
  cp ${3%.so}.json ${3%.so}.txt $OUTR/
}
for S in 0 1 2; do
  tune resnet18-200-with-s${S}b $S $BEFORE
  tune resnet18-200-with-s${S}w $S
done
cd $W
cp $S54/resnet18-1000-without.db resnet18-1000-without-s0.db
cp $S55/resnet18-1000-without-s1.db $S55/resnet18-1000-without-s2.db .
for S in 0 1 2; do
  cp resnet18-200-with-s${S}b.db resnet18-200-with-s${S}b-own.db  # the build stores a kernel that fails its check
  build resnet18-200-with-s${S}b-own.db $S lib-resnet18-200-with-s${S}b-own.so $BEFORE
  build resnet18-200-with-s${S}b.db $S lib-resnet18-200-with-s${S}b-shared.so
  build resnet18-200-with-s${S}w.db $S lib-resnet18-200-with-s${S}w-shared.so
  build resnet18-1000-without-s$S.db $S lib-resnet18-1000-without-s$S-shared.so
done
echo "== resnet18 interleaved start $(date -u +%T)"
cd $W
$P $R/models-znver3-s39/multi.py resnet18 21 \
  $(for S in 0 1 2; do echo before-own-s$S=lib-resnet18-200-with-s${S}b-own.so; done) \
  $(for S in 0 1 2; do echo before-shared-s$S=lib-resnet18-200-with-s${S}b-shared.so; done) \
  $(for S in 0 1 2; do echo twins-shared-s$S=lib-resnet18-200-with-s${S}w-shared.so; done) \
  $(for S in 0 1 2; do echo 1000-without-shared-s$S=lib-resnet18-1000-without-s$S-shared.so; done) \
  1000-without-own-s0=$S54/lib-resnet18-1000-without.so 1000-without-own-s1=$S55/lib-resnet18-1000-without-s1.so \
  1000-without-own-s2=$S55/lib-resnet18-1000-without-s2.so 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
