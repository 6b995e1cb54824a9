#!/bin/bash
# Stop 99: VGG-16 at 200 with transfer, seeds 0-2: 182 measurements of the shipped search (tensortune tune --trials 182),
# then up to 18 unroll probes of the convs' incumbents (polish.py), each from an empty database, then built; then one
# interleaved latency set over them, stop 98's three
# 200-with runs and stop 98's three 1,000-without runs (/work/runs/s98/models).
# Usage: polish.sh MODEL [PIDS to wait for]
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
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
sg
M=$W/models
mkdir -p $M $HERE/models
for s in 0 1 2; do
  N=$model-200-with-polish-s$s
  ( cd $M && rm -f $N.db* lib-$N.*
    echo "== tune $N start $(date -u +%T)"
    $P -m tensortune.cli.main tune --model $model --trials 182 --seed $s --db $N.db --out $N.json --no-progress > $N.txt 2>&1
    echo "   rc $?  end $(date -u +%T)"
    $P $HERE/polish.py $model $s $N.db 18 > polish-$N.txt 2>&1
    echo "   polish rc $?  end $(date -u +%T)"; grep -v Warn polish-$N.txt
    echo "   measurements: $(sqlite3 $N.db "select count(*) from records where kind='trial'")"
    grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep "transfer:" $N.txt | head -3
    $P -m tensortune.cli.main build --model $model --seed $s --db $N.db --out lib-$N.so > lib-$N.txt 2>&1
    echo "   build rc $?  end $(date -u +%T)"
    cp $N.json $N.txt polish-$N.txt lib-$N.json lib-$N.txt $HERE/models/ )
  sg
done
R=10; [ $model = vgg16 ] && R=8
echo "== latency $model ($R rounds) start $(date -u +%T)"
L=""
for s in 0 1 2; do
  L="$L --lib polish-200-with-s$s=$M/lib-$model-200-with-polish-s$s.so@$s --lib 1000-without-s$s=$O/lib-$model-1000-without-s$s.so@$s"
  L="$L --lib r16-200-with-s$s=$O/lib-$model-200-with-s$s.so@$s"
done
$P -m tensortune.cli.main bench latency --model $model --rounds $R --no-progress --out $W/latency-polish-$model $L \
  --pairs polish-200-with-s0/1000-without-s0,polish-200-with-s1/1000-without-s1,polish-200-with-s2/1000-without-s2 --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-polish-$model && cp $W/latency-polish-$model/{report.md,results.json,latency.png} $HERE/latency-polish-$model/
$P pairs.py $W/latency-polish-$model/results.json polish | tee $HERE/latency-polish-$model/pairs.txt
sg
echo "== done $(date -u +%T)"
