#!/bin/bash
# stop 54: the 5x cells' with-transfer runs again (200 measurements, same command, new empty databases), to see how
# far a second tuning run of the same cell lands from the first; each timed with the first run's library and the
# 1,000-without one, fresh processes, 21 interleaved rounds. Sequential, nothing else running.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
R=/work/main/results/transfer
OUTR=$R/models-rocketlake-s54
export TVM_NUM_THREADS=2
mkdir -p /work/runs/s54/rep; cd /work/runs/s54/rep
for M in vgg16 resnet18; do
  rm -f $M-200-with-2.db*
  echo "== $M 200 with (second run)  start $(date -u +%T)"
  $TT tune --model $M --trials 200 --compare onnxruntime,eager --rounds 15 --db $M-200-with-2.db \
    --out $M-200-with-2.json --no-progress > $M-200-with-2.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $M-200-with-2.txt
  cp $M-200-with-2.json $M-200-with-2.txt $OUTR/
  $TT build --model $M --db $M-200-with-2.db --out lib-$M-200-with-2.so 2>&1 | tail -1
done
M=/work/runs/s54/models
echo "== interleaved start $(date -u +%T)"
$P $R/models-znver3-s39/multi.py vgg16 21 200-with=$M/lib-vgg16-200-with.so 200-with-2=lib-vgg16-200-with-2.so \
  1000-without-s51=/work/runs/s51/models/lib-vgg16-1000-without.so 2>&1 | grep -v "Scope Loaded"
$P $R/models-znver3-s39/multi.py resnet18 21 200-with=$M/lib-resnet18-200-with.so \
  200-with-2=lib-resnet18-200-with-2.so 1000-without=$M/lib-resnet18-1000-without.so 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
