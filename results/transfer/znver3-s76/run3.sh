#!/bin/bash
# Stop 76: ResNet-18 seed 1, 200 with transfer from stop 70's znver3 corpus (before part 1b: --corpus FILE), built;
# then one 24-round latency set of the three seed-1 libraries. Nothing else running.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s76
export TVM_NUM_THREADS=2
N=resnet18-200-with-s70corpus-s1
cd $W/models
echo "== tune $N start $(date -u +%T)"
$P -m tensortune.cli.main tune --model resnet18 --trials 200 --seed 1 --corpus $W/corpus/shipped-s70.json.gz --db $N.db --out $N.json --no-progress > $N.txt 2>&1
echo "   rc $?  end $(date -u +%T)"
grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt; grep "transfer:" $N.txt | head -3
$P -m tensortune.cli.main build --model resnet18 --seed 1 --corpus $W/corpus/shipped-s70.json.gz --db $N.db --out lib-$N.so > lib-$N.txt 2>&1
echo "   build rc $?  end $(date -u +%T)"
cp $N.json $N.txt lib-$N.json lib-$N.txt $HERE/models/
echo "== latency (24 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s1=$W/models/lib-resnet18-200-with-s1.so@1 --lib 200-with-s70corpus-s1=$W/models/lib-$N.so@1 \
  --lib 1000-without-s1=$W/models/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s1/1000-without-s1,200-with-s1/200-with-s70corpus-s1,200-with-s70corpus-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-24 && cp $W/latency-resnet18/{report.md,results.json,latency.png} $HERE/latency-resnet18-24/
echo "== done $(date -u +%T)"
