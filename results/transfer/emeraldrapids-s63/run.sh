#!/bin/bash
# Stop 63, a 2-vCPU Intel Xeon VM (family 6 model 207, LLVM `emeraldrapids`, AVX-512/AMX visible), code e13dbe2.
# Runs after this machine's corpus build (../corpus-build-emeraldrapids.sh), nothing else running:
#  1. the corpus is copied into the package (a run here then takes it as its prior);
#  2. ground-truth tables of L1, L2, L7, L8 on this machine;
#  3. leave one layer out on them (replay), autotvm and chameleon with and without transfer, seeds 0-2, 120;
#  4. ResNet-18, seed 0, from empty databases: 200 with transfer, 200 without, 1,000 without; built; one
#     12-round interleaved timing set (timing.py: fresh process per measurement) with ONNX Runtime;
#  5. held-out L3-L6 live, autotvm with and without, seeds 0-2 (L1, L2, L7, L8 replayed again).
set -u
cd "$(dirname "$0")"
HERE=$PWD
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
TABLES=/work/main/results/transfer/tables-emeraldrapids
W=/work/runs/s63
export TVM_NUM_THREADS=2
while ! grep -q "rc " /work/main/results/transfer/corpus-build-emeraldrapids.log; do sleep 10; done
echo "== corpus build over: $(tail -1 /work/main/results/transfer/corpus-build-emeraldrapids.log)"
cp $W/corpus/corpus-llvm-emeraldrapids.json.gz /work/main/src/tensortune/transfer/data/ || exit 1
echo "corpus in use: $($TT corpus show 2>&1 | grep '^corpus ')"
echo "== groundtruth start $(date -u +%T)"
/usr/bin/time -p $TT groundtruth --layers L1,L2,L7,L8 --db $W/gt.db --out $TABLES --no-progress > gt.log 2>&1
echo "   rc $?  end $(date -u +%T)"; tail -6 gt.log
mkdir -p loo
echo "== loo replay start $(date -u +%T)"
$TT bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 120 \
  --features knobs+corpus --out loo --no-progress > loo/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
mkdir -p models $W/models
one() {  # model trials seed with|without
  N=$1-$2-$4-s$3; X=""; [ $4 = without ] && X=--no-transfer
  cd $W/models; rm -f $N.db* lib-$N.*
  echo "== tune $N start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model $1 --trials $2 $X --seed $3 --db $N.db --out $N.json --no-progress > $N.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt; grep "transfer:" $N.txt | head -3
  $P -m tensortune.cli.main build --model $1 $X --seed $3 --db $N.db --out lib-$N.so > lib-$N.txt 2>&1; echo "   build rc $?  end $(date -u +%T)"
  cp $N.json $N.txt lib-$N.json lib-$N.txt $HERE/models/
  cd $HERE
}
one resnet18 200 0 with
one resnet18 200 0 without
one resnet18 1000 0 without
echo "== timing resnet18 start $(date -u +%T)"
(cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 12 \
  200-with=lib-resnet18-200-with-s0.so@0 200-without=lib-resnet18-200-without-s0.so@0 \
  1000-without=lib-resnet18-1000-without-s0.so@0 2>&1 | grep -v "Scope Loaded") > models/timing.log
echo "   end $(date -u +%T)"; cat models/timing.log | tail -8
mkdir -p live
echo "== loo live start $(date -u +%T)"
$TT bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm --seeds 0,1,2 --trials 120 \
  --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out live --no-progress > live/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
echo "== all done $(date -u +%T)"
