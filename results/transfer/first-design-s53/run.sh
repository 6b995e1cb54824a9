#!/bin/bash
# stop 53: the first design before (2 per source, "base") and after 2ef9da7 (8 shared out over the sources, "fill"),
# replayed (timing-insensitive) on each CPU's tables with its corpus as sources; autotvm seeds 0-2, chameleon L1 seeds 0-8.
cd /work/main
export TVM_NUM_THREADS=2
E=results/transfer/first-design-s53/exp.py
for set in "rocketlake results/transfer/tables-rocketlake" "znver5 " "znver3 results/transfer/tables-znver3"; do
  read CPU TABLES <<< "$set"
  echo "== $CPU tables ${TABLES:-shipped}"
  CPU=$CPU TABLES=$TABLES .venv/bin/python $E L1,L2,L7,L8 base,fill 0,1,2 autotvm 2>&1 | grep "median"
  CPU=$CPU TABLES=$TABLES .venv/bin/python $E L1 base,fill 0,1,2,3,4,5,6,7,8 chameleon 2>&1 | grep "median"
done
