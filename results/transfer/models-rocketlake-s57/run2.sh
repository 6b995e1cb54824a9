# Stop 57: three more tuning runs of each side of ResNet-18's 5x cell (seeds 3-5; 200 with transfer and 1,000
# without, alternating, each from an empty database), built (twin sharing at the build; --no-transfer for the
# runs tuned without it), then all twelve libraries of seeds 0-5 in one timing set (timing.py, 15 rounds).
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-rocketlake-s57
W=/work/runs/s57/models
S56=/work/runs/s56/models
export TVM_NUM_THREADS=2
git -C /work/main log --oneline -1
cd $W
one() {  # name trials seed [--no-transfer]
  rm -f $1.db* lib-$1.*
  echo "== tune $1 start $(date -u +%T)"
  $TT tune --model resnet18 --trials $2 $4 --seed $3 --db $1.db --out $1.json --no-progress > $1.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $1.txt
  $TT build --model resnet18 $4 --seed $3 --db $1.db --out lib-$1.so > lib-$1.txt 2>&1; echo "   build rc $?"
  tail -1 lib-$1.txt; grep -o "building with [^,]*" lib-$1.txt
  cp $1.json $1.txt lib-$1.json lib-$1.txt $OUTR/
}
for S in 3 4 5; do
  one resnet18-200-with-s$S 200 $S
  one resnet18-1000-without-s$S 1000 $S --no-transfer
done
echo "== timing start $(date -u +%T)"
$P $OUTR/timing.py resnet18 15 \
  $(for S in 0 1 2; do echo 200-with-s$S=$S56/lib-resnet18-200-with-s${S}w-shared.so@$S; done) \
  $(for S in 3 4 5; do echo 200-with-s$S=lib-resnet18-200-with-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 1000-without-s$S=$S56/lib-resnet18-1000-without-s$S-shared.so@$S; done) \
  $(for S in 3 4 5; do echo 1000-without-s$S=lib-resnet18-1000-without-s$S.so@$S; done) 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
