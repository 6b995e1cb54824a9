# Stop 57: ResNet-18 500 and 1,000 with transfer tuned again by the current code (twins in the search, stop 56),
# seed 0 like the rest of the grid; then one timing set (timing.py: a fresh process per measurement, random
# order per round) of the 5x cell (stop 56's 200-with and 1,000-without builds, seeds 0-2) and the grid's cells.
TT=/work/main/.venv/bin/tensortune
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-rocketlake-s57
W=/work/runs/s57/models
S56=/work/runs/s56/models
export TVM_NUM_THREADS=2
git -C /work/main log --oneline -1
cd $W
for N in 500 1000; do
  rm -f resnet18-$N-with-new.db*
  echo "== tune resnet18-$N-with-new start $(date -u +%T)"
  $TT tune --model resnet18 --trials $N --seed 0 --db resnet18-$N-with-new.db --out resnet18-$N-with-new.json --no-progress > resnet18-$N-with-new.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' resnet18-$N-with-new.txt
  cp resnet18-$N-with-new.json resnet18-$N-with-new.txt $OUTR/
  L=lib-resnet18-$N-with-new
  $TT build --model resnet18 --seed 0 --db resnet18-$N-with-new.db --out $L.so > $L.txt 2>&1; echo "   build rc $?"; tail -1 $L.txt
  grep -o "([0-9]* of them a config measured on a twin[^)]*)" $L.txt
  cp $L.json $L.txt $OUTR/
done
echo "== timing start $(date -u +%T)"
$P $OUTR/timing.py resnet18 21 \
  $(for S in 0 1 2; do echo 200-with-s$S=$S56/lib-resnet18-200-with-s${S}w-shared.so@$S; done) \
  $(for S in 0 1 2; do echo 1000-without-s$S=$S56/lib-resnet18-1000-without-s$S-shared.so@$S; done) \
  200-without=lib-resnet18-200-without-shared.so 500-without=lib-resnet18-500-without-shared.so \
  500-with=lib-resnet18-500-with-new.so 1000-with=lib-resnet18-1000-with-new.so 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
