#!/bin/bash
# Stop 61 (the Zen 4 VM: LLVM `znver4`, AVX-512/GFNI hidden). ResNet-18's 5x cell with the size-corrected rank
# group weights (cost_models/xgb.py: rank_group_weights): 200 with transfer (this machine's corpus), seeds 0-2, each
# from an empty database, built with the options it was tuned with. Then one 9-round timing set (timing.py) over
# those three, stop 60's three 200-with libraries (the code before, same corpus) and stop 58's 1,000-without ones.
# Started after the live leave-one-out run ended; nothing else ran meanwhile.
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-znver4-s61
W=/work/runs/s61/models
S58=/work/runs/s58/models
S60=/work/runs/s60/models
T=/work/main/results/transfer/models-rocketlake-s57/timing.py
export TVM_NUM_THREADS=2
mkdir -p $OUTR $W
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
$P $T resnet18 9 \
  $(for S in 0 1 2; do echo 200-with-sizecorr-s$S=lib-resnet18-200-with-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 200-with-before-s$S=$S60/lib-resnet18-200-with-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 1000-without-s$S=$S58/lib-resnet18-1000-without-s$S.so@$S; done) 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
