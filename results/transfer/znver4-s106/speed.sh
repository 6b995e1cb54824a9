#!/bin/bash
# replay bench, base (HEAD before the change, /tmp/wt0) and new (working tree), interleaved: base new base new
cd /work/main
for i in 1 2; do
  for v in base new; do
    out=/tmp/speed/$v-$i; rm -rf $out
    if [ $v = base ]; then pp=/tmp/wt0/src; else pp=/work/main/src; fi
    s=$(date +%s.%N)
    PYTHONPATH=$pp .venv/bin/tensortune bench transfer --tables results/transfer/tables-znver4 --layers L1,L2,L7,L8 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out $out --no-progress > $out.log 2>&1
    e=$(date +%s.%N)
    echo "$v $i $(echo "$e - $s" | bc) s"
  done
done
