#!/bin/bash
# Stop 81, nothing else running, after lat-s80libs.sh (stop 80's four ResNet-18 libraries under the interleaved
# protocol) ended: ResNet-18's grid at seed 0 with the current code (stop 80's twins as one task): 200 without,
# 500 with and without, 1,000 with (stop 80's 200 with and 1,000 without complete it); then 12-round latency sets
# of the ResNet-18 grid and of VGG-16's (stops 78-79's libraries: VGG-16 has no twin groups, so its tuning is
# unchanged since stop 78).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s81
export TVM_NUM_THREADS=2
while pgrep -f lat1.sh > /dev/null; do sleep 10; done
lscpu | grep -E "Model name|^CPU\(s\)"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
one resnet18 200 0 without
one resnet18 500 0 with
one resnet18 500 0 without
one resnet18 1000 0 with
M=$W/models O=/work/runs/s80/models
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== latency resnet18 grid (12 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 12 --no-progress --out $W/latency-resnet18-grid \
  --lib 200-with=$O/lib-resnet18-200-with-s0.so@0 --lib 500-with=$M/lib-resnet18-500-with-s0.so@0 \
  --lib 1000-with=$M/lib-resnet18-1000-with-s0.so@0 --lib 200-without=$M/lib-resnet18-200-without-s0.so@0 \
  --lib 500-without=$M/lib-resnet18-500-without-s0.so@0 --lib 1000-without=$O/lib-resnet18-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,500-with/1000-without,200-with/200-without,500-with/500-without,1000-with/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-resnet18-grid && cp $W/latency-resnet18-grid/{report.md,results.json,latency.png} $HERE/latency-resnet18-grid/
V=/work/runs/s79/models U=/work/runs/s78/models
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== latency vgg16 grid (12 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 12 --no-progress --out $W/latency-vgg16-grid \
  --lib 200-with=$U/lib-vgg16-200-with-s78corpus-s0.so@0 --lib 500-with=$V/lib-vgg16-500-with-s0.so@0 \
  --lib 1000-with=$V/lib-vgg16-1000-with-s0.so@0 --lib 200-without=$V/lib-vgg16-200-without-s0.so@0 \
  --lib 500-without=$V/lib-vgg16-500-without-s0.so@0 --lib 1000-without=$U/lib-vgg16-1000-without-s0.so@0 \
  --pairs 200-with/1000-without,500-with/1000-without,200-with/200-without,500-with/500-without,1000-with/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-grid && cp $W/latency-vgg16-grid/{report.md,results.json,latency.png} $HERE/latency-vgg16-grid/
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== done $(date -u +%T)"
