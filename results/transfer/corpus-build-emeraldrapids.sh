#!/bin/bash
# Stop 63: the corpus of this 2-vCPU Intel Xeon VM (family 6 model 207, LLVM `emeraldrapids`, AVX-512 and AMX visible), code e13dbe2
cd /work/runs/s63/corpus
echo "== corpus build start $(date -u +%T)"
/usr/bin/time -p env TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune corpus build --db corpus.db --out /work/runs/s63/corpus/corpus-llvm-emeraldrapids.json.gz --no-progress
echo "   rc $?  end $(date -u +%T)"
