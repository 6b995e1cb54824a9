#!/bin/bash
# Stop 81: stop 80's four ResNet-18 libraries (code e963c47, twins as one task) under the interleaved protocol.
# (run as /work/runs/s81/lat1.sh, log lat2.log; its first try, lat1, waited 20 ms between repeats and was stopped: see the README)
set -u
P=/work/main/.venv/bin/python
M=/work/runs/s80/models
lscpu | grep -E "Model name|^CPU\(s\)"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git -C /work/main log --oneline | head -1
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
date -u +%T
$P -m tensortune.cli.main bench latency --model resnet18 --rounds 24 --no-progress --out /work/runs/s81/lat2-resnet18 \
  --lib 200-with-s0=$M/lib-resnet18-200-with-s0.so@0 --lib 1000-without-s0=$M/lib-resnet18-1000-without-s0.so@0 \
  --lib 200-with-s1=$M/lib-resnet18-200-with-s1.so@1 --lib 1000-without-s1=$M/lib-resnet18-1000-without-s1.so@1 \
  --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1 --combine
echo "rc $? $(date -u +%T)"
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
