#!/bin/bash
# Stop 105, a Zen 4 VM with AVX-512 (AMD EPYC, family 25 model 17, LLVM `znver4`), nothing else running.
# Zen 4's 5x cell was measured one seed per set (seed 0: stops 103/104's grids; seeds 1-2: stops 100 and 103), so
# unlike Zen 5's row it has no verdict over seeds 0-2 together. No tuning here: the six libraries per model that
# those stops built (200 with and 1,000 without at seeds 0, 1, 2; kept in /work/runs) are timed again in one
# interleaved set per model, with --combine (the three pairs judged together, round by round).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
R=/work/runs
W=$R/s105
mkdir -p $W
export TVM_NUM_THREADS=2
lscpu | grep -E "Model name|^CPU\(s\)|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
sg() { echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))') $(date -u +%T)"; }
pooled() {  # MODEL ROUNDS S0DIR S1DIR S2DIR (the stop folders that built seed 0, 1, 2)
  local m=$1 n=$2 libs=() pairs=() s d
  for s in 0 1 2; do
    d=$R/$(eval echo \${$((s + 3))})/models
    libs+=(--lib "200-with-s$s=$d/lib-$m-200-with-s$s.so@$s" --lib "1000-without-s$s=$d/lib-$m-1000-without-s$s.so@$s")
    pairs+=("200-with-s$s/1000-without-s$s")
  done
  sg
  echo "== latency $m seeds 0-2 ($n rounds) start $(date -u +%T)"
  $P -m tensortune.cli.main bench latency --model $m --rounds $n --no-progress --out $W/latency-$m "${libs[@]}" \
    --pairs "$(IFS=,; echo "${pairs[*]}")" --combine
  echo "   rc $? end $(date -u +%T)"
  mkdir -p $HERE/latency-$m && cp $W/latency-$m/{report.md,results.json,latency.png} $HERE/latency-$m/
}
pooled resnet18 10 s104 s100 s103
pooled vgg16 8 s103 s100 s100
sg
echo "== done $(date -u +%T)"
