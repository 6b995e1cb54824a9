#!/bin/bash
# Stop 84, a Zen 5 VM (AMD EPYC, family 26 model 2, LLVM `znver5`), nothing else running. Code: 035f949 (live runs
# keep every config they measured and are credited as replay credits a run). This script:
#   1. the live held-out layers L3-L6 again (stop 83's command), to read them with the new crediting;
#   2. ResNet-18 at 500 measurements, without and with transfer (seed 0, empty databases), built, then one
#      interleaved latency set with stop 82's seed-0 200-with and 1,000-without libraries;
#   3. the same for VGG-16.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s84
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
echo "== live L3-L6 start $(date -u +%T)"
mkdir -p $W/loo-live
$P -m tensortune.cli.main bench transfer --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out $W/loo-live --no-progress > $W/loo-live/log.txt 2>&1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/loo-live && cp $W/loo-live/{report.md,results.json,log.txt} $HERE/loo-live/ 2>/dev/null
sg
. ../bench-helpers.sh
O=/work/runs/s82/models M=$W/models
for model in resnet18 vgg16; do
  one $model 500 0 without
  sg
  one $model 500 0 with
  sg
  R=12; [ $model = vgg16 ] && R=10
  echo "== latency $model ($R rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $model --rounds $R --no-progress --out $W/latency-$model \
    --lib 200-with=$O/lib-$model-200-with-s82corpus-s0.so@0 --lib 500-with=$M/lib-$model-500-with-s0.so@0 \
    --lib 500-without=$M/lib-$model-500-without-s0.so@0 --lib 1000-without=$O/lib-$model-1000-without-s0.so@0 \
    --pairs 500-with/500-without,200-with/1000-without,500-with/1000-without
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$model && cp $W/latency-$model/{report.md,results.json,latency.png} $HERE/latency-$model/
  sg
done
echo "== done $(date -u +%T)"
