#!/bin/bash
# Stop 69, after run.sh (same VM, nothing else running; code 0e93d9c: random layouts as views of one buffer per
# worker): VGG-16 at 500 with transfer, seed 0, a third time (stop 68: fc6 3.23 s a measurement; run.sh, with the
# per-shape cache: 1.91 s), then the runner time per task of the three databases; then the two latency reports
# rendered again (nothing measured: every round is done), ResNet-18's with --combine (its pairs are one per seed).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s69b
TT="$P -m tensortune.cli.main"
R=/work/runs
git log --oneline | head -1
. ../bench-helpers.sh
one vgg16 500 0 with
$P $R/s69/runwall.py $R/s68/models/vgg16-500-with-s0.db $R/s69/models/vgg16-500-with-s0.db $W/models/vgg16-500-with-s0.db
$TT bench latency --model resnet18 --rounds 40 --no-progress --out $R/s69/latency-resnet18 --combine \
  --lib 200-with-s0=$R/s66/models/lib-resnet18-200-with-s0.so@0 \
  --lib 1000-without-s0=$R/s63/models/lib-resnet18-1000-without-s0.so@0 \
  --lib 200-with-s1=$R/s64/models/lib-resnet18-200-with-s1.so@1 \
  --lib 1000-without-s1=$R/s64/models/lib-resnet18-1000-without-s1.so@1 \
  --lib 200-with-s2=$R/s65/models/lib-resnet18-200-with-s2.so@2 \
  --lib 1000-without-s2=$R/s65/models/lib-resnet18-1000-without-s2.so@2 \
  --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1,200-with-s2/1000-without-s2
cp $R/s69/latency-resnet18/{report.md,results.json,latency.png} latency-resnet18/
$TT bench latency --model vgg16 --rounds 20 --no-progress --out $R/s69/latency-vgg16 \
  --lib 200-with=$R/s64/models/lib-vgg16-200-with-s0.so \
  --lib 200-without=$R/s64/models/lib-vgg16-200-without-s0.so \
  --lib 500-with=$R/s68/models/lib-vgg16-500-with-s0.so \
  --lib 500-without=$R/s68/models/lib-vgg16-500-without-s0.so \
  --lib 1000-with=$R/s68/models/lib-vgg16-1000-with-s0.so \
  --lib 1000-without=$R/s67/models/lib-vgg16-1000-without-s0.so \
  --pairs 200-with/1000-without,200-without/1000-without,500-with/500-without,1000-with/1000-without
cp $R/s69/latency-vgg16/{report.md,results.json,latency.png} latency-vgg16/
echo "== all done $(date -u +%T)"
