# Stop 57: rebuild stop 54's ResNet-18 grid (seed 0, rocketlake) with twin sharing at the build (stop 56, a82e73d),
# from copies of its databases (the build stores what fails its check inside the model).
TT=/work/main/.venv/bin/tensortune
OUTR=/work/main/results/transfer/models-rocketlake-s57
W=/work/runs/s57/models
S54=/work/runs/s54/models
export TVM_NUM_THREADS=2
git -C /work/main log --oneline -1
mkdir -p $W; cd $W
for C in 200-without 200-with 500-without 500-with 1000-with; do
  cp $S54/resnet18-$C.db resnet18-$C.db
  L=lib-resnet18-$C-shared
  echo "== build $L $(date -u +%T)"
  $TT build --model resnet18 --seed 0 --db resnet18-$C.db --out $L.so > $L.txt 2>&1; echo "   rc $?"; tail -1 $L.txt
  grep -o "([0-9]* of them a config measured on a twin[^)]*)" $L.txt
  cp $L.json $L.txt $OUTR/
done
echo "== done $(date -u +%T)"
