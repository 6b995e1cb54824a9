#!/bin/bash
# Stop 60, after the LOO script: VGG-16's 200 with transfer (seed 0) with this machine's corpus, and a 9-round timing
# set against stop 59's 200-with (znver3 corpus) and 1,000-without libraries (the part run.sh was stopped before).
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-znver4-s60
S59=/work/runs/s59/models
export TVM_NUM_THREADS=2
cd /work/runs/s60/models
N=vgg16-200-with-s0; rm -f $N.db* lib-$N.* $N.txt
echo "== tune $N ($(git -C /work/main log --oneline -1 | cut -c1-7)) start $(date -u +%T)"
$P -m tensortune.cli.main tune --model vgg16 --trials 200 --seed 0 --db $N.db --out $N.json --no-progress > $N.txt 2>&1
echo "   rc $?  end $(date -u +%T)"
grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt; grep "transfer:" $N.txt | head -3
$P -m tensortune.cli.main build --model vgg16 --seed 0 --db $N.db --out lib-$N.so > lib-$N.txt 2>&1; echo "   build rc $?  end $(date -u +%T)"
cp $N.json $N.txt lib-$N.json lib-$N.txt $OUTR/
echo "== timing vgg16 start $(date -u +%T)"
$P /work/main/results/transfer/models-rocketlake-s57/timing.py vgg16 9 200-with-own-corpus=lib-$N.so@0 \
  200-with-znver3-corpus=$S59/lib-vgg16-200-with-s0.so@0 1000-without=$S59/lib-vgg16-1000-without-s0.so@0 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
