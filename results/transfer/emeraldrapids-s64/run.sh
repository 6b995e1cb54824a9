#!/bin/bash
# Stop 64, the same 2-vCPU Intel Xeon VM as stop 63 (family 6 model 207, LLVM `emeraldrapids`), code d76b859
# (stop 63's code and corpus; only tests changed). Nothing else running. Stop 63's libraries are still on this
# machine (/work/runs/s63/models): they are timed again here, side by side with this stop's, in one set.
#  1. ResNet-18 seed 0 at 500 with and without transfer (empty databases; "with": the shipped corpus + within-run);
#  2. ResNet-18 seed 1 at 200 with and 1,000 without (the 5x goal's pair, a second seed);
#  3. one 12-round interleaved timing set of all seven ResNet-18 libraries with ONNX Runtime (timing.py);
#  4. if before 04:25 UTC: VGG-16 seed 0 at 200 with and without, built, 8-round timing set.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s64
OLD=/work/runs/s63/models
export TVM_NUM_THREADS=2
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
one resnet18 500 0 with
one resnet18 500 0 without
one resnet18 200 1 with
one resnet18 1000 1 without
echo "== timing resnet18 start $(date -u +%T)"
(cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 12 \
  200-with-s0=$OLD/lib-resnet18-200-with-s0.so@0 200-without-s0=$OLD/lib-resnet18-200-without-s0.so@0 \
  1000-without-s0=$OLD/lib-resnet18-1000-without-s0.so@0 \
  500-with-s0=lib-resnet18-500-with-s0.so@0 500-without-s0=lib-resnet18-500-without-s0.so@0 \
  200-with-s1=lib-resnet18-200-with-s1.so@1 1000-without-s1=lib-resnet18-1000-without-s1.so@1 \
  2>&1 | grep -v "Scope Loaded") > models/timing-resnet18.log
echo "   end $(date -u +%T)"; tail -9 models/timing-resnet18.log
if [ "$(date -u +%H%M)" -lt 0425 ]; then
  one vgg16 200 0 with
  one vgg16 200 0 without
  echo "== timing vgg16 start $(date -u +%T)"
  (cd $W/models && $P /work/main/results/transfer/models-rocketlake-s57/timing.py vgg16 8 \
    200-with-s0=lib-vgg16-200-with-s0.so@0 200-without-s0=lib-vgg16-200-without-s0.so@0 \
    2>&1 | grep -v "Scope Loaded") > models/timing-vgg16.log
  echo "   end $(date -u +%T)"; tail -4 models/timing-vgg16.log
else
  echo "== VGG-16 skipped: $(date -u +%T) is past 04:25 (CI needs the machine)"
fi
echo "== all done $(date -u +%T)"
