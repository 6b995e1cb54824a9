#!/bin/bash
# Stop 85, a Zen 5 VM (AMD EPYC, family 26 model 2, LLVM `znver5`), nothing else running. Code: 64b2861.
# Completes the issue-19 grid on this CPU at seed 0 (stops 82 and 84 measured 200 with, 500 with, 500 without and
# 1,000 without): ResNet-18 and VGG-16 at 200 without and 1,000 with, from empty databases, built, then one
# interleaved latency set per model over all six seed-0 libraries (stop 82's 200 with and 1,000 without, stop 84's
# 500 with and without, these two).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s85
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
A=/work/runs/s82/models B=/work/runs/s84/models M=$W/models
for model in resnet18 vgg16; do
  one $model 200 0 without
  sg
  one $model 1000 0 with
  sg
  R=10; [ $model = vgg16 ] && R=8
  echo "== latency $model ($R rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $model --rounds $R --no-progress --out $W/latency-$model \
    --lib 200-with=$A/lib-$model-200-with-s82corpus-s0.so@0 --lib 200-without=$M/lib-$model-200-without-s0.so@0 \
    --lib 500-with=$B/lib-$model-500-with-s0.so@0 --lib 500-without=$B/lib-$model-500-without-s0.so@0 \
    --lib 1000-with=$M/lib-$model-1000-with-s0.so@0 --lib 1000-without=$A/lib-$model-1000-without-s0.so@0 \
    --pairs 200-with/200-without,500-with/500-without,1000-with/1000-without,200-with/1000-without,500-with/1000-without
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$model && cp $W/latency-$model/{report.md,results.json,latency.png} $HERE/latency-$model/
  sg
done
echo "== done $(date -u +%T)"
