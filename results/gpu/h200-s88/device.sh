#!/bin/bash
# One call on the GPU machine (the `device` tool): measure the CUDA bundle built here, then (SECOND_PASS=1) measure every
# kernel again for the tables' noise, then check that the runner records each kind of failure. Run from the repository root with .gpubundle and .gpufaults carried:
#   bash results/gpu/h200-s88/device.sh
set -u
export PYTHONPATH=src PYTHONUNBUFFERED=1
O=${OUT:-/tmp/out}
mkdir -p "$O"
{ date -u; nvidia-smi; python3 --version
  python3 -c "import cupy, torch, numpy; print('cupy', cupy.__version__, 'torch', torch.__version__, 'numpy', numpy.__version__)"
} > "$O/env.txt" 2>&1
R=/tmp/res
mkdir -p "$R"
if [ -d .gpures ]; then cp -r .gpures/. "$R/"; fi  # a partial run carried back here resumes
timeout "${MAIN_S:-360}" python3 -m tensortune.measure.cuda_runner .gpubundle --out "$R" --layers "${LAYERS:-L8,L7,L2,L1}" \
  --budget-s "${BUDGET_S:-320}" 2>&1 | tee "$O/run.log"
tar czf "$O/results.tgz" -C "$R" .
if [ "${SECOND_PASS:-0}" = 1 ]; then  # every kernel measured again in the same session: the tables' noise
  timeout 300 python3 -m tensortune.measure.cuda_runner .gpubundle --out /tmp/res2 --layers "${LAYERS:-L8,L7,L2,L1}" \
    --budget-s 240 2>&1 | tee "$O/run2.log"
  tar czf "$O/results2.tgz" -C /tmp/res2 .
fi
if [ "${FAULTS:-1}" = 1 ]; then
  timeout 150 python3 -m tensortune.measure.cuda_runner .gpufaults --out /tmp/faults --kernel-timeout-s 8 2>&1 \
    | tee "$O/faults.log"
  tar czf "$O/faults.tgz" -C /tmp/faults .
fi
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv >> "$O/env.txt" 2>&1
