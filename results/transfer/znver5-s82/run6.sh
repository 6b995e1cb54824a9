#!/bin/bash
# Stop 82, after the remaining test run (pid $1) ended, nothing else running: probe.py on the three multi-call
# Winograd tasks where the two VGG-16 libraries' build profiles differ most (512 channels at 14 and 28 px, 256 at 56).
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
export TVM_NUM_THREADS=2
while kill -0 "$1" 2>/dev/null; do sleep 5; done
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
echo "== probe start $(date -u +%T)"
$P probe.py fused_conv2d_winograd7_add4_relu41,fused_conv2d_winograd6_add3_relu31,fused_conv2d_winograd4_add2_relu21 > probe2.txt 2>&1
echo "   rc $? end $(date -u +%T)"
echo "sgemm $($P -c 'from tensortune.models.peers import sgemm_gflops; print(round(sgemm_gflops(2)))')"
