#!/bin/bash
# Stop 106, after speed.sh: held-out L2 replayed with transfer (autotvm, seed 0, 300, the Zen 4 tables and corpus) while
# two busy loops (one per vCPU) share the machine, with the code before the change (/tmp/wt0, a worktree of 5446fa4)
# and after it (the working tree), interleaved base new base new. The loops are killed at the end.
set -u
cd /work/main
busy() { python3 -c "while True: pass" & }
busy; b1=$!; busy; b2=$!
trap 'kill $b1 $b2 2>/dev/null' EXIT
for i in 1 2; do
  for v in base new; do
    if [ $v = base ]; then pp=/tmp/wt0/src; else pp=/work/main/src; fi
    out=/tmp/speed/load-$v-$i; rm -rf $out
    s=$(date +%s.%N)
    PYTHONPATH=$pp .venv/bin/tensortune bench transfer --tables results/transfer/tables-znver4 --layers L2,L7,L8 \
      --recipes autotvm --seeds 0 --trials 300 --features knobs+corpus --out $out --no-progress > $out.log 2>&1
    e=$(date +%s.%N)
    echo "$v $i $(echo "$e - $s" | bc) s; per run: $(python3 -c "import json; print(', '.join(f\"{r['layer']} {'with' if r['transfer'] else 'without'} {r['wall_s']:.1f}\" for r in json.load(open('$out/results.json'))['runs']))")"
  done
done
