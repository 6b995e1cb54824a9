#!/bin/bash
# the build and timing part of seed1.sh, rerun after its builds lacked --seed 1
cd /work/runs/s46/alloc
T=/work/main/.venv/bin/tensortune
date -u +"builds %F %T UTC"
for v in old new; do $T build --model resnet18 --db r18-s1-$v.db --seed 1 --out r18-s1-$v.so > build-r18-s1-$v.log 2>&1; done
date -u +"timing %F %T UTC"
TVM_NUM_THREADS=2 /work/main/.venv/bin/python /work/main/results/transfer/models-znver3-s39/multi.py resnet18 21 \
  old=r18-s1-old.so new=r18-s1-new.so 2>&1 | grep -v "Warning: Scope Loaded" > multi-r18-s1.txt
/work/main/.venv/bin/python /work/runs/s46/alloc/shares.py r18-s1-old.db r18-s1-new.db > shares-r18-s1.txt
date -u +"end %F %T UTC"
