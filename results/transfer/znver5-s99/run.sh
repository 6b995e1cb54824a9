#!/bin/bash
# Stop 99, the Zen 5 VM of stops 92-98 (AMD EPYC, family 26 model 2 (Zen 5), LLVM `znver5`), nothing else running.
# Does a finer allocation round help VGG-16's 200 with transfer? Three fresh 200-with runs (seeds 0-2, shipped corpus
# + within-run transfer, empty databases) with `--round-size 8` instead of the default 16, then one interleaved latency
# set over them, stop 98's three 200-with runs (round 16, today's code) and stop 98's three 1,000-without runs
# (/work/runs/s98/models), per-seed pairs of the new 200 with against the 1,000 without, and the other pairs
# (pairs.py). Usage: run.sh MODEL [PIDS to wait for]
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s99
O=/work/runs/s98/models
export TVM_NUM_THREADS=2
model=$1; shift
for p in "$@"; do while kill -0 "$p" 2>/dev/null; do sleep 5; done; done
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1; git -C /work/main status --short | head
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
M=$W/models
mkdir -p $M $HERE/models
for s in 0 1 2; do
  N=$model-200-with-r8-s$s
  ( cd $M && rm -f $N.db* lib-$N.*
    echo "== tune $N start $(date -u +%T)"
    $P -m tensortune.cli.main tune --model $model --trials 200 --round-size 8 --seed $s --db $N.db --out $N.json --no-progress > $N.txt 2>&1
    echo "   rc $?  end $(date -u +%T)"
    grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep "transfer:" $N.txt | head -3
    $P -m tensortune.cli.main build --model $model --seed $s --db $N.db --out lib-$N.so > lib-$N.txt 2>&1
    echo "   build rc $?  end $(date -u +%T)"
    cp $N.json $N.txt lib-$N.json lib-$N.txt $HERE/models/ )
  sg
done
R=10; [ $model = vgg16 ] && R=8
echo "== latency $model ($R rounds) start $(date -u +%T)"
L=""
for s in 0 1 2; do
  L="$L --lib r8-200-with-s$s=$M/lib-$model-200-with-r8-s$s.so@$s --lib 1000-without-s$s=$O/lib-$model-1000-without-s$s.so@$s"
  L="$L --lib r16-200-with-s$s=$O/lib-$model-200-with-s$s.so@$s"
done
$P -m tensortune.cli.main bench latency --model $model --rounds $R --no-progress --out $W/latency-$model $L \
  --pairs r8-200-with-s0/1000-without-s0,r8-200-with-s1/1000-without-s1,r8-200-with-s2/1000-without-s2 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-$model && cp $W/latency-$model/{report.md,results.json,latency.png} $HERE/latency-$model/
$P pairs.py $W/latency-$model/results.json | tee $HERE/latency-$model/pairs.txt
sg
echo "== done $(date -u +%T)"
