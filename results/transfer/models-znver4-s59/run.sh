# Stop 59 (the same Zen 4 VM as stop 58: LLVM `znver4`, AVX-512/GFNI hidden, target mattr -avx512*,-gfni), code at
# c73d60a. The model table on this CPU, one run a cell (seed 0), each from an empty database ("with" = the
# shipped prior + within-run transfer), each built with the options it was tuned with; stop 58 measured ResNet-18's
# 200-with and 1000-without (three seeds). Order by priority: VGG-16's 5x cell first, then ResNet-18's other cells,
# then VGG-16 at 200 without. One timing set per model afterwards (timing.py, fresh process per measurement).
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-znver4-s59
W=/work/runs/s59/models
export TVM_NUM_THREADS=2
cd $W
one() {  # model trials seed with|without
  N=$1-$2-$4-s$3; X=""; [ $4 = without ] && X=--no-transfer
  rm -f $N.db* lib-$N.*
  echo "== tune $N start $(date -u +%T)"
  $P -m tensortune.cli.main tune --model $1 --trials $2 $X --seed $3 --db $N.db --out $N.json --no-progress > $N.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $N.txt; grep -o "machine sgemm.*" $N.txt
  $P -m tensortune.cli.main build --model $1 $X --seed $3 --db $N.db --out lib-$N.so > lib-$N.txt 2>&1; echo "   build rc $?  end $(date -u +%T)"
  cp $N.json $N.txt lib-$N.json lib-$N.txt $OUTR/
}
one vgg16 200 0 with
one vgg16 1000 0 without
echo "== timing vgg16 start $(date -u +%T)"
$P /work/main/results/transfer/models-rocketlake-s57/timing.py vgg16 9 \
  200-with=lib-vgg16-200-with-s0.so@0 1000-without=lib-vgg16-1000-without-s0.so@0 2>&1 | grep -v "Scope Loaded"
one resnet18 200 0 without
one resnet18 500 0 with
one resnet18 500 0 without
one resnet18 1000 0 with
echo "== timing resnet18 start $(date -u +%T)"
S58=/work/runs/s58/models
$P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 15 \
  200-with=$S58/lib-resnet18-200-with-new-s0.so@0 200-without=lib-resnet18-200-without-s0.so@0 \
  500-with=lib-resnet18-500-with-s0.so@0 500-without=lib-resnet18-500-without-s0.so@0 \
  1000-with=lib-resnet18-1000-with-s0.so@0 1000-without=$S58/lib-resnet18-1000-without-s0.so@0 2>&1 | grep -v "Scope Loaded"
one vgg16 200 0 without
echo "== all done $(date -u +%T)"
