#!/bin/bash
# Stop 85, after run2.sh. VGG-16 at 200 measurements with transfer, seed 0, from empty databases, twice: as shipped,
# and with the confirmation inside the budget (`--confirm-top 3 --confirm-rounds 1 --confirm-share 0.15`: 170
# measurements of search, then the heaviest tasks' 3 best configs measured again back to back while the other 30
# last). Then one interleaved latency set with this stop's 200 without, stop 82's 1,000 without and run2's
# confirmed (outside the budget) copy of stop 82's 200 with.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s85
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
# (the new test ran before this script, alone: tests/models/test_models.py -k inside_its_budget, 1 passed)
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
one vgg16 200 0 with
sg
N=vgg16-200-with-cb-s0
( cd $W/models && rm -f $N.db* lib-$N.*
  echo "== tune $N start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model vgg16 --trials 200 --seed 0 --confirm-top 3 --confirm-rounds 1 \
    --confirm-share 0.15 --db $N.db --out $N.json --no-progress > $N.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep "^confirmed" $N.txt; grep "transfer:" $N.txt | head -2
  $P -m tensortune.cli.main build --model vgg16 --seed 0 --db $N.db --out lib-$N.so > lib-$N.txt 2>&1
  echo "   build rc $?  end $(date -u +%T)"
  cp $N.json $N.txt lib-$N.json lib-$N.txt $HERE/models/ )
sg
A=/work/runs/s82/models M=$W/models
echo "== latency vgg16 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16-200 \
  --lib 200-with=$M/lib-vgg16-200-with-s0.so@0 --lib 200-with-cb=$M/lib-$N.so@0 \
  --lib 200-without=$M/lib-vgg16-200-without-s0.so@0 --lib 1000-without=$A/lib-vgg16-1000-without-s0.so@0 \
  --lib 200-with-s82-c3=$W/confirm/lib-vgg16-200-with-s82corpus-s0-c3.so@0 \
  --pairs 200-with-cb/200-with,200-with/1000-without,200-with-cb/1000-without,200-with-s82-c3/1000-without,200-with/200-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-200 && cp $W/latency-vgg16-200/{report.md,results.json,latency.png} $HERE/latency-vgg16-200/
sg
echo "== done $(date -u +%T)"
