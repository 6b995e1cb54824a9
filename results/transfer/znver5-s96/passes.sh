#!/bin/bash
# Confirm stop 95's live runs (their searches kept, their stop-95 confirmation set aside as s95_confirmed) in
# five passes with today's code: pass p of all five live layers (three results files, one command each) before
# pass p + 1, each command extending its file by one pass (--confirm-passes p).
cd /work/main
date; lscpu | grep "Model name"
.venv/bin/python -c 'import tvm; print("llvm", tvm.target.codegen.llvm_get_system_cpu())'
for p in 1 2 3 4 5; do
  .venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
  .venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L3,L5 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s96/l35-live --confirm-passes $p; echo rc=$?; date
  .venv/bin/tensortune bench transfer --layers L1,L2,L7,L8 --live L4,L6 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s96/l46-live --confirm-passes $p; echo rc=$?; date
  .venv/bin/tensortune bench transfer --layers L2,L7,L8 --live L1 --recipes autotvm,chameleon --seeds 0,1,2 --trials 300 --features knobs+corpus --out /work/runs/s96/l1-live --confirm-passes $p; echo rc=$?; date
done
.venv/bin/python -c 'from tensortune.models.peers import sgemm_gflops; print("sgemm", round(sgemm_gflops(2)))'
date
