#!/bin/bash
# Stop 105: would the existing --confirm-top have recovered VGG-16's 200-with picks on Zen 4 (seed 2's fc6 near-tie),
# and at what cost in measurements? Each seed's 200-with database (stops 103 and 100) is copied, `tune` runs again on
# the copy with --confirm-top 2 (budget spent: only the confirmation measures, outside --trials), then `build`. Then
# one interleaved set of nine libraries: 200 with as tuned, 200 with confirmed, 1,000 without, seeds 0-2.
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s105/models
mkdir -p $W $HERE/models
export TVM_NUM_THREADS=2
lscpu | grep -E "Model name|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
declare -A D=([0]=/work/runs/s103/models [1]=/work/runs/s100/models [2]=/work/runs/s100/models)
for S in 0 1 2; do
  N=vgg16-200-with-c2-s$S
  rm -f $W/$N.db* $W/lib-$N.*
  cp ${D[$S]}/vgg16-200-with-s$S.db $W/$N.db
  sg
  echo "== tune (confirm only) $N start $(date -u +%T)"
  (cd $W && $P -m tensortune.cli.main tune --model vgg16 --trials 200 --seed $S --db $N.db --out $N.json \
     --confirm-top 2 --confirm-rounds 3 --compare "" --no-progress > $N.txt 2>&1)
  echo "   rc $?  end $(date -u +%T)"; grep -E "^confirmed|tasks \(" $W/$N.txt
  (cd $W && $P -m tensortune.cli.main build --model vgg16 --seed $S --db $N.db --out lib-$N.so > lib-$N.txt 2>&1)
  echo "   build rc $?  end $(date -u +%T)"
  cp $W/$N.json $W/$N.txt $W/lib-$N.json $W/lib-$N.txt $HERE/models/
done
sg
libs=(); pairs=()
for S in 0 1 2; do
  libs+=(--lib "200-with-s$S=${D[$S]}/lib-vgg16-200-with-s$S.so@$S" --lib "200-with-c2-s$S=$W/lib-vgg16-200-with-c2-s$S.so@$S"
         --lib "1000-without-s$S=${D[$S]}/lib-vgg16-1000-without-s$S.so@$S")
  pairs+=("200-with-c2-s$S/1000-without-s$S")
done
echo "== latency vgg16 nine libraries (8 rounds) start $(date -u +%T)"
$P -m tensortune.cli.main bench latency --model vgg16 --rounds 8 --no-progress --out $W/../latency-vgg16-c2 "${libs[@]}" \
  --pairs "$(IFS=,; echo "${pairs[*]}")" --combine
echo "   rc $? end $(date -u +%T)"
mkdir -p $HERE/latency-vgg16-c2 && cp $W/../latency-vgg16-c2/{report.md,results.json,latency.png} $HERE/latency-vgg16-c2/
sg
echo "== done $(date -u +%T)"
