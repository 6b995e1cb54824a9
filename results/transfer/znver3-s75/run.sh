#!/bin/bash
# Stop 75, the Zen 3 VM of stops 70-74 (2-vCPU AMD EPYC, family 25 model 1, LLVM `znver3`, AVX2, 32 MiB L3), nothing
# else running: ResNet-18 at 200 with transfer, seed 1, with the diverse plan (tuners.recipes.TRANSFER_DIVERSITY set to
# 2 for this run only; the code's default stays 0 after the replay in ../div-s75), from an empty database, built; then one 12-round latency set against stop 74's seed-1 libraries (200 with, top of
# the plan; 1,000 without), kept in /work/runs/s74/models.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
TT="$P -m tensortune.cli.main"
W=/work/runs/s75
S74=/work/runs/s74/models
export TVM_NUM_THREADS=2
mkdir -p $W
lscpu | grep -E "Model name|^CPU\(s\)|^Model:|family"
$P -c "import tvm; print('llvm cpu', tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
N=resnet18-200-with-s1
mkdir -p $W/models models
( cd $W/models && rm -f $N.db* lib-$N.*
  echo "== tune $N (TRANSFER_DIVERSITY 2) start $(date -u +%T)"
  $P -c "import sys; from tensortune.tuners import recipes; recipes.TRANSFER_DIVERSITY = 2.0
from tensortune.cli.main import main; print('TRANSFER_DIVERSITY', recipes.TRANSFER_DIVERSITY); sys.exit(main())" \
    tune --model resnet18 --trials 200 --seed 1 --db $N.db --out $N.json --no-progress > $N.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt; grep "transfer:\|DIVERSITY" $N.txt | head -3
  $TT build --model resnet18 --seed 1 --db $N.db --out lib-$N.so > lib-$N.txt 2>&1
  echo "   build rc $?  end $(date -u +%T)"
  cp $N.json $N.txt lib-$N.json lib-$N.txt $HERE/models/ )
echo "== latency start $(date -u +%T)"
$TT bench latency --model resnet18 --rounds ${ROUNDS:-12} --no-progress --out $W/latency-resnet18-div \
  --lib 200-with-div-s1=$W/models/lib-resnet18-200-with-s1.so@1 --lib 200-with-top-s1=$S74/lib-resnet18-200-with-s1.so@1 \
  --lib 1000-without-s1=$S74/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-div-s1/200-with-top-s1,200-with-div-s1/1000-without-s1,200-with-top-s1/1000-without-s1
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18-div && cp $W/latency-resnet18-div/{report.md,results.json,latency.png} latency-resnet18-div/
echo "== done $(date -u +%T)"
