#!/bin/bash
# Stop 60: the corpus of this Zen 4 VM (znver4, AVX-512 and GFNI hidden), code of /work/runs/s60/code (HEAD at start)
cd "$(dirname "$0")"
echo "== corpus build start $(date -u +%T)"
export PYTHONPATH=/work/runs/s60/code/src
/usr/bin/time -p env TVM_NUM_THREADS=2 /work/main/.venv/bin/tensortune corpus build --db corpus.db --out /work/runs/s60/corpus/corpus-llvm-znver4-no-avx512-no-gfni.json.gz --no-progress
echo "   rc $?  end $(date -u +%T)"
