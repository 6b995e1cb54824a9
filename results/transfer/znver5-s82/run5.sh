#!/bin/bash
# Stop 82, after run4.sh (pid $1), nothing else running: probe.py again (its first try in run4.sh failed at once).
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
export TVM_NUM_THREADS=2
while kill -0 "$1" 2>/dev/null; do sleep 5; done
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== probe start $(date -u +%T)"
$P probe.py > probe.txt 2>&1
echo "   rc $? end $(date -u +%T)"
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
