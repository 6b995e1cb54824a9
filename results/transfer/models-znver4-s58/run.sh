# Stop 58 (a Zen 4 VM that hides AVX-512: LLVM `znver4`, target mattr -avx512*,-gfni): ResNet-18's 5x cell with
# twins as one task for the allocator (b83880e, worktree /work/wt-new) against the same code with that commit
# (5f43db8) reverted (eab7bb0, /work/wt-old) at 200 with transfer, and 1,000 without transfer (its allocation is
# the same in both), seeds 0-2 alternating, each from an empty database, each built with the options it was tuned
# with; then all nine libraries in one timing set (timing.py, 15 rounds).
P=/work/main/.venv/bin/python
OUTR=/work/main/results/transfer/models-znver4-s58
W=/work/runs/s58/models
export TVM_NUM_THREADS=2
cd $W
one() {  # name worktree trials seed [--no-transfer]
  rm -f $1.db* lib-$1.*
  echo "== tune $1 ($(git -C $2 log --oneline -1 | cut -c1-7)) start $(date -u +%T)"
  PYTHONPATH=$2/src $P -m tensortune.cli.main tune --model resnet18 --trials $3 $5 --seed $4 --db $1.db --out $1.json --no-progress > $1.txt 2>&1
  echo "   rc $?  end $(date -u +%T)"
  grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $1.txt
  PYTHONPATH=$2/src $P -m tensortune.cli.main build --model resnet18 $5 --seed $4 --db $1.db --out lib-$1.so > lib-$1.txt 2>&1; echo "   build rc $?"
  tail -1 lib-$1.txt; grep -o "building with [^,]*" lib-$1.txt
  cp $1.json $1.txt lib-$1.json lib-$1.txt $OUTR/
}
for S in 0 1 2; do
  one resnet18-200-with-new-s$S /work/wt-new 200 $S
  one resnet18-1000-without-s$S /work/wt-new 1000 $S --no-transfer
  one resnet18-200-with-old-s$S /work/wt-old 200 $S
done
echo "== timing start $(date -u +%T)"
$P /work/main/results/transfer/models-rocketlake-s57/timing.py resnet18 15 \
  $(for S in 0 1 2; do echo 200-with-new-s$S=lib-resnet18-200-with-new-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 1000-without-s$S=lib-resnet18-1000-without-s$S.so@$S; done) \
  $(for S in 0 1 2; do echo 200-with-old-s$S=lib-resnet18-200-with-old-s$S.so@$S; done) 2>&1 | grep -v "Scope Loaded"
echo "== all done $(date -u +%T)"
