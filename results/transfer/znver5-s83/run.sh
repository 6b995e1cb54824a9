#!/bin/bash
# Stop 83, the same kind of Zen 5 VM as stop 82 (AMD EPYC, family 26 model 2, LLVM `znver5`), nothing else running,
# code unchanged since stop 81 (da64e47), the znver5 corpus as stop 82 extended it. Stop 82 measured VGG-16's 200
# with 9% slower than its 1,000 without at seed 0 only; this script:
#   1. VGG-16 at seed 1: 1,000 without, 200 with (the shipped corpus), from empty databases, then each built;
#   2. one interleaved latency set of stop 82's seed-0 pair and these seed-1 libraries (--combine: over both seeds);
#   3. the live held-out layers L3-L6 on this CPU (not rerun since stop 49's older code): stop 49's command.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s83
export TVM_NUM_THREADS=2
[ -n "${1:-}" ] && while kill -0 "$1" 2>/dev/null; do sleep 5; done  # the replay before it (pid $1)
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
. ../bench-helpers.sh
one vgg16 1000 1 without
sg
one vgg16 200 1 with
sg
echo "== latency vgg16 (10 rounds) start $(date -u +%T)"
M=$W/models O=/work/runs/s82/models
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 10 --no-progress --out $W/latency-vgg16 \
  --lib 200-with-s0=$O/lib-vgg16-200-with-s82corpus-s0.so@0 --lib 1000-without-s0=$O/lib-vgg16-1000-without-s0.so@0 \
  --lib 200-with-s1=$M/lib-vgg16-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-vgg16-1000-without-s1.so@1 \
  --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} $HERE/latency-vgg16/
sg
echo "== live L3-L6 start $(date -u +%T)"
mkdir -p $W/loo-live
$P -m tensortune.cli.main bench transfer --layers L1,L2,L7,L8 --live L3,L4,L5,L6 --recipes autotvm,chameleon \
  --seeds 0,1,2 --trials 120 --features knobs+corpus --out $W/loo-live --no-progress > $W/loo-live/log.txt 2>&1
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/loo-live && cp $W/loo-live/{report.md,results.json,log.txt} $HERE/loo-live/ 2>/dev/null
sg
echo "== done $(date -u +%T)"
