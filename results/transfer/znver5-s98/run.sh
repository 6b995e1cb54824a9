#!/bin/bash
# Stop 98, the Zen 5 VM of stops 92-97 (AMD EPYC, family 26 model 2 (Zen 5), LLVM `znver5`), nothing else running.
# The whole-model 5x cell of issue 19 after the allocator change of this stop (streaming tasks: the smallest first
# round, later rounds after the others): VGG-16 then ResNet-18, seeds 0-2, 200 with transfer (the shipped znver5
# corpus + within-run transfer) and 1,000 without (--no-transfer), each from an empty database, seed by seed; then
# one interleaved latency set per model over these six libraries and stop 97's six (the code before the change,
# /work/runs/s97/models), per-seed pairs of this stop's 5x cell and the seeds together (pairs.py: the other pairs).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s98
O=/work/runs/s97/models
export TVM_NUM_THREADS=2
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
for model in vgg16 resnet18; do
  for s in 0 1 2; do one $model 200 $s with; sg; one $model 1000 $s without; sg; done
  M=$W/models
  R=10; [ $model = vgg16 ] && R=8
  echo "== latency $model ($R rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $model --rounds $R --no-progress --out $W/latency-$model \
    --lib 200-with-s0=$M/lib-$model-200-with-s0.so@0 --lib 1000-without-s0=$M/lib-$model-1000-without-s0.so@0 \
    --lib 200-with-s1=$M/lib-$model-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-$model-1000-without-s1.so@1 \
    --lib 200-with-s2=$M/lib-$model-200-with-s2.so@2 --lib 1000-without-s2=$M/lib-$model-1000-without-s2.so@2 \
    --lib s97-200-with-s0=$O/lib-$model-200-with-s0.so@0 --lib s97-1000-without-s0=$O/lib-$model-1000-without-s0.so@0 \
    --lib s97-200-with-s1=$O/lib-$model-200-with-s1.so@1 --lib s97-1000-without-s1=$O/lib-$model-1000-without-s1.so@1 \
    --lib s97-200-with-s2=$O/lib-$model-200-with-s2.so@2 --lib s97-1000-without-s2=$O/lib-$model-1000-without-s2.so@2 \
    --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1,200-with-s2/1000-without-s2 --combine
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$model && cp $W/latency-$model/{report.md,results.json,latency.png} $HERE/latency-$model/
  $P pairs.py $W/latency-$model/results.json | tee $HERE/latency-$model/pairs.txt
  sg
done
echo "== done $(date -u +%T)"
