#!/bin/bash
# Stop 85, after run.sh. Diagnostic: how much of VGG-16's 200-with gap (stops 82-84: 6-9% slower than 1,000 without)
# is the build's config picked on one noisy measurement? Copies of stop 82's seed-0 databases (200 with, 1,000
# without) are resumed with `--confirm-top 3 --confirm-rounds 3` (the budget is spent, so only the confirmation
# runs: each task's 3 best configs measured again in 3 interleaved rounds, ranked by those medians; outside the
# budget), built, and timed in one interleaved latency set with the unconfirmed libraries.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s85
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
A=/work/runs/s82/models
mkdir -p $W/confirm $HERE/confirm
cd $W/confirm
for pair in "200:200-with-s82corpus:" "1000:1000-without:--no-transfer"; do
  T=${pair%%:*} R=${pair#*:}; N=vgg16-${R%%:*}-s0 X=${R#*:}
  rm -f $N-c3.db* lib-$N-c3.*
  cp $A/$N.db $N-c3.db
  echo "== confirm $N start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model vgg16 --trials $T $X --seed 0 --db $N-c3.db --out $N-c3.json \
    --confirm-top 3 --confirm-rounds 3 --no-progress > $N-c3.txt 2>&1
  echo "   rc $? end $(date -u +%T)"; grep "^confirmed" $N-c3.txt
  $P -m tensortune.cli.main build --model vgg16 $X --seed 0 --db $N-c3.db --out lib-$N-c3.so > lib-$N-c3.txt 2>&1
  echo "   build rc $? end $(date -u +%T)"
  cp $N-c3.json $N-c3.txt lib-$N-c3.json lib-$N-c3.txt $HERE/confirm/
done
sg
echo "== latency vgg16 confirm (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16-confirm \
  --lib 200-with=$A/lib-vgg16-200-with-s82corpus-s0.so@0 --lib 200-with-c3=lib-vgg16-200-with-s82corpus-s0-c3.so@0 \
  --lib 1000-without=$A/lib-vgg16-1000-without-s0.so@0 --lib 1000-without-c3=lib-vgg16-1000-without-s0-c3.so@0 \
  --pairs 200-with-c3/200-with,1000-without-c3/1000-without,200-with-c3/1000-without,200-with-c3/1000-without-c3
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-confirm && cp $W/latency-vgg16-confirm/{report.md,results.json,latency.png} $HERE/latency-vgg16-confirm/
sg
echo "== done $(date -u +%T)"
