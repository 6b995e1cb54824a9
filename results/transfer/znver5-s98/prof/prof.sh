set -u
P=/work/main/.venv/bin/python
M=/work/runs/s97/models
export TVM_NUM_THREADS=2
for n in 200-with-s1 1000-without-s1; do
  X=""; [[ $n == *without* ]] && X=--no-transfer
  echo "== profile $n $(date -u +%T)"
  $P -m tensortune.cli.main profile --model vgg16 --db $M/vgg16-$n.db $X --seed 1 --rounds 10 --out prof-vgg16-$n.json > prof-vgg16-$n.txt 2>&1
  echo "rc $? $(date -u +%T)"
done
