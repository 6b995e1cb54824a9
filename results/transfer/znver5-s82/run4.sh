#!/bin/bash
# Stop 82, after run3.sh, nothing else running: probe.py (VGG-16's first-plan Winograd configs measured again side
# by side), then tests/models (the whole-model tests run with transfer on, so on this CPU with the extended corpus).
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
export TVM_NUM_THREADS=2
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== probe start $(date -u +%T)"
$P probe.py > probe-failed.txt 2>&1  # failed at once (config index read as text), fixed and rerun by run5.sh
echo "   rc $? end $(date -u +%T)"
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== tests/models start $(date -u +%T)"
cd /work/main && $P -m pytest -q tests/models 2>&1 | tail -8
echo "== done $(date -u +%T)"
