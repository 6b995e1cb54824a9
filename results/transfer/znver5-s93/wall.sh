#!/bin/bash
# 200 without vs 200 with: tuning wall time (warm task dir), nothing else running
P=/work/main/.venv/bin/python
export TVM_NUM_THREADS=2
W=/work/runs/s93/wall; mkdir -p $W
for v in without with; do
  rm -f $W/$v.db*
  X=""; [ $v = without ] && X="--no-transfer --no-corpus"
  t0=$(date +%s.%N)
  $P -m tensortune.cli.main tune --model resnet18 --trials 200 --seed 0 --db $W/$v.db --out $W/$v.json --no-progress --compare untuned $X > $W/$v.txt 2>&1
  rc=$?; t1=$(date +%s.%N)
  echo "$v: rc $rc $(grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $W/$v.txt), command $(echo "$t1 - $t0" | bc) s"
done
