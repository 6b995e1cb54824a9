#!/bin/bash
# Stop 70: the corpus of this 2-vCPU AMD EPYC VM (family 25 model 1, LLVM `znver3`, AVX2, 32 MiB L3), code 59f9110,
# from an empty database (the shipped znver3 file was stop 36's and earlier: 31 tasks, no stems, no Winograd tasks)
cd /work/runs/s70/corpus
echo "== corpus build start $(date -u +%T)"
/usr/bin/time -p env TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune corpus build --db corpus.db --out /work/runs/s70/corpus/corpus-llvm-znver3.json.gz --no-progress
echo "   rc $?  end $(date -u +%T)"
