#!/bin/bash
# Stop 97, the Zen 5 VM of stops 92-96 (AMD EPYC, family 26 model 2, LLVM `znver5`), nothing else running.
# The whole-model 5x cell of issue 19 with today's code (9b3d166: the first-design rules of stops 92-94 and the
# intrinsics registration of stop 92 are in; whole-model runs leave the probes and the discredited-prior exploration
# out): ResNet-18 and VGG-16, seeds 0-2, 200 with transfer (the shipped znver5 corpus + within-run transfer) and
# 1,000 without (--no-transfer), each from an empty database, seed by seed (200 with, then 1,000 without), then one
# interleaved latency set per model over the six libraries, per-seed pairs and the seeds together.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s97
export TVM_NUM_THREADS=2
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
for model in resnet18 vgg16; do
  for s in 0 1 2; do one $model 200 $s with; sg; one $model 1000 $s without; sg; done
done
M=$W/models
for model in resnet18 vgg16; do
  R=10; [ $model = vgg16 ] && R=8
  echo "== latency $model ($R rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $model --rounds $R --no-progress --out $W/latency-$model \
    --lib 200-with-s0=$M/lib-$model-200-with-s0.so@0 --lib 1000-without-s0=$M/lib-$model-1000-without-s0.so@0 \
    --lib 200-with-s1=$M/lib-$model-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-$model-1000-without-s1.so@1 \
    --lib 200-with-s2=$M/lib-$model-200-with-s2.so@2 --lib 1000-without-s2=$M/lib-$model-1000-without-s2.so@2 \
    --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1,200-with-s2/1000-without-s2 --combine
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$model && cp $W/latency-$model/{report.md,results.json,latency.png} $HERE/latency-$model/
  sg
done
echo "== done $(date -u +%T)"
