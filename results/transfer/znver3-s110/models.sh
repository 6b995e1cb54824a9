#!/bin/bash
# Stop 110, Zen 3 VM, nothing else running, after run.sh: issue 19's 5x goal on VGG-16 at seeds 1 and 2 (stop 108
# measured seed 0 with the runner fix): 200 measurements with transfer (shipped corpus + within-run) against 1,000
# without, from empty databases, then each seed's two built libraries side by side (`bench latency`, 8 rounds).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s110
export TVM_NUM_THREADS=2
date -u
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
. ../bench-helpers.sh
sg
M=$W/models
for S in ${SEEDS:-1 2}; do
  one vgg16 200 $S with
  one vgg16 1000 $S without
  sg
  echo "== latency vgg16 seed $S (8 rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/latency-vgg16-s$S \
    --lib 200-with-s$S=$M/lib-vgg16-200-with-s$S.so@$S --lib 1000-without-s$S=$M/lib-vgg16-1000-without-s$S.so@$S \
    --pairs 200-with-s$S/1000-without-s$S
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-vgg16-s$S && cp $W/latency-vgg16-s$S/{report.md,results.json,latency.png} $HERE/latency-vgg16-s$S/
  sg
done
echo "== done $(date -u +%T)"
