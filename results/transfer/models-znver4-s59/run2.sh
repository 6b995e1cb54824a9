# Stop 59, after run.sh: VGG-16 at 500 with and without transfer (seed 0, empty databases, same code and
# protocol as run.sh), then one timing set of VGG-16's five libraries of this stop (200/500 with and without,
# 1,000 without) with ONNX Runtime.
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
one vgg16 500 0 with
one vgg16 500 0 without
echo "== timing vgg16 (all five) start $(date -u +%T)"
$P /work/main/results/transfer/models-rocketlake-s57/timing.py vgg16 7 \
  $(for C in 200-with 200-without 500-with 500-without 1000-without; do echo $C=lib-vgg16-$C-s0.so@0; done) 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
