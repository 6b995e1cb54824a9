#!/bin/bash
# Stop 100, a Zen 4 VM with AVX-512 (AMD EPYC, family 25 model 17, LLVM `znver4`), nothing else running, no code
# change since stop 99 (d75eb0a). Fills what issue 19's closing note asks for on this CPU and stop 91 left out:
#   1. this CPU's ground-truth tables of L2 and L7 (stop 91 made L1 and L8 only), then the replay leave-one-layer-out
#      of L1, L2, L7, L8 with three tables + the shipped znver4 corpus as sources, autotvm and chameleon;
#   2. VGG-16's 5x cell at seeds 1 and 2 (stop 91 measured seed 0 only): 200 with / 1,000 without, one interleaved
#      latency set with --combine;
#   3. L3-L6 held out live on this CPU (never measured here), autotvm with and without, seeds 0-2, 300, three
#      confirmation passes (the default).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s100
export TVM_NUM_THREADS=2
TABLES=/work/main/results/transfer/tables-znver4
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
if [ ! -f $TABLES/L7.json.gz ]; then
  echo "== groundtruth L2,L7 start $(date -u +%T)"
  /usr/bin/time -p $P -m tensortune.cli.main groundtruth --layers L2,L7 --db $W/gt.db --out $TABLES --no-progress > gt.log 2>&1
  echo "   rc $? end $(date -u +%T)"; tail -6 gt.log
fi
sg
echo "== loo (replay) start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $TABLES --layers L1,L2,L7,L8 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --out $HERE/loo --no-progress > loo.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -25 loo.log
sg
. ../bench-helpers.sh
M=$W/models
for S in 1 2; do one vgg16 200 $S with; one vgg16 1000 $S without; done
sg
echo "== latency vgg16 (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s1=$M/lib-vgg16-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-vgg16-1000-without-s1.so@1 \
  --lib 200-with-s2=$M/lib-vgg16-200-with-s2.so@2 --lib 1000-without-s2=$M/lib-vgg16-1000-without-s2.so@2 \
  --pairs 200-with-s1/1000-without-s1,200-with-s2/1000-without-s2 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== live L3-L6 start $(date -u +%T)"
/usr/bin/time -p $P -m tensortune.cli.main bench transfer --tables $TABLES --layers L1,L2,L7,L8 --live L3,L4,L5,L6 \
  --recipes autotvm --seeds 0,1,2 --trials 300 --features knobs+corpus --out $W/live --no-progress > live.log 2>&1
echo "   rc $? end $(date -u +%T)"; tail -40 live.log
mkdir -p $HERE/live && cp $W/live/{report.md,results.json} $HERE/live/ 2>/dev/null; ls $W/live
sg
echo "== done $(date -u +%T)"
