#!/bin/bash
# Stop 60 (the Zen 4 VM of stops 58-59: LLVM `znver4`, AVX-512/GFNI hidden, target mattr -avx512*,-gfni).
# ResNet-18's 5x cell with the corpus built on this machine this stop (corpus-llvm-znver4-no-avx512-no-gfni.json.gz,
# which holds Winograd records; the znver3 corpus taken before holds none): 200 with transfer, seeds 0-2, each
# from an empty database, built with the options it was tuned with. Then one timing set (timing.py, 15 rounds)
# over those three, stop 58's 200-with libraries of the current code with the znver3 corpus ("old" in stop 58's
# names) and stop 58's 1,000-without libraries. Then VGG-16's 200 with (seed 0) and a 9-round set against stop
# 59's 200-with and 1,000-without.
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-znver4-s60
W=/work/runs/s60/models
S58=/work/runs/s58/models
S59=/work/runs/s59/models
T=/work/main/results/transfer/models-rocketlake-s57/timing.py
export TVM_NUM_THREADS=2
mkdir -p $OUTR
cd $W
one() {  # model trials seed with|without
  N=$1-$2-$4-s$3; X=""; [ $4 = without ] && X=--no-transfer
  rm -f $N.db* lib-$N.*
  echo "== tune $N ($(git -C /work/main log --oneline -1 | cut -c1-7)) start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model $1 --trials $2 $X --seed $3 --db $N.db --out $N.json --no-progress > $N.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt; grep "transfer:" $N.txt | head -3
  $P -m tensortune.cli.main build --model $1 $X --seed $3 --db $N.db --out lib-$N.so > lib-$N.txt 2>&1; echo "   build rc $?  end $(date -u +%T)"
  cp $N.json $N.txt lib-$N.json lib-$N.txt $OUTR/
}
echo "corpus in use: $($P -m tensortune.cli.main corpus show 2>&1 | grep '^corpus ')"
for S in 0 1 2; do one resnet18 200 $S with; done
echo "== timing resnet18 start $(date -u +%T)"
$P $T resnet18 15 \
  $(for S in 0 1 2; do echo 200-with-own-corpus-s$S=lib-resnet18-200-with-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 200-with-znver3-corpus-s$S=$S58/lib-resnet18-200-with-old-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 1000-without-s$S=$S58/lib-resnet18-1000-without-s$S.so@$S; done) 2>&1 | grep -v "Scope Loaded"
one vgg16 200 0 with
echo "== timing vgg16 start $(date -u +%T)"
$P $T vgg16 9 200-with-own-corpus=lib-vgg16-200-with-s0.so@0 200-with-znver3-corpus=$S59/lib-vgg16-200-with-s0.so@0 \
  1000-without=$S59/lib-vgg16-1000-without-s0.so@0 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
