#!/bin/bash
# Stop 74, the Zen 3 VM of stops 70-73 (2-vCPU AMD EPYC, family 25 model 1, LLVM `znver3`, AVX2, 32 MiB L3), code
# of stop 73 (4178fdf), nothing else running:
#  1. held-out L5 live, autotvm with and without transfer, seeds 0-2, 300 measurements (stop 72 at 120: 37 with,
#     > 120 without; 1/5 needs the runs without at >= 185). L2 and L7 are the table layers given (the command needs two): in stop 72 L5's
#     sources were L2 and two corpus convs (L1, L7, L8 fell under the similarity cut), so this keeps its sources
#     and replays only L2 and L7 besides;
#  2. ResNet-18 seed 1 from empty databases: the 5x cell (200 with, 1,000 without), built, one 12-round latency set;
#  3. the rest of the grid at seed 1 (500 with and without, 200 without, 1,000 with), then one latency set of all.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
TT="$P -m tensortune.cli.main"
W=/work/runs/s74
export TVM_NUM_THREADS=2
mkdir -p $W
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
echo "corpus in use: $($TT corpus show 2>&1 | grep '^corpus ')"
mkdir -p l5
echo "== L5 live 300 start $(date -u +%T)"
$TT bench transfer --tables /work/main/results/transfer/tables-znver3 --layers L2,L7 --live L5 --recipes autotvm \
  --seeds 0,1,2 --trials 300 --features knobs+corpus --confirm-top 8 --confirm-rounds 7 --out $W/l5 \
  --no-progress > l5/loo.log 2>&1
echo "   rc $?  end $(date -u +%T)"
cp $W/l5/report.md $W/l5/results.json l5/
. ../bench-helpers.sh
lat() {  # lat NAME CELL...: one latency set of these seed-1 cells, the 5x pair compared
  local out=$1; shift
  local libs=()
  for c in "$@"; do libs+=(--lib "$c-s1=$W/models/lib-resnet18-$c-s1.so@1"); done
  echo "== latency $out start $(date -u +%T)"
  $TT bench latency --model resnet18 --rounds ${ROUNDS:-12} --no-progress --out $W/$out "${libs[@]}" \
    --pairs 200-with-s1/1000-without-s1
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $out && cp $W/$out/{report.md,results.json,latency.png} $out/
}
one resnet18 200 1 with
one resnet18 1000 1 without
lat latency-resnet18-5x 200-with 1000-without
one resnet18 500 1 with
one resnet18 500 1 without
one resnet18 200 1 without
one resnet18 1000 1 with
lat latency-resnet18-grid 200-with 1000-without 500-with 500-without 200-without 1000-with
echo "== all done $(date -u +%T)"
