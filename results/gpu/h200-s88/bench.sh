#!/bin/bash
# The bench on the CUDA tables (replay; nothing live). Run from the repository root.
set -e
T=src/tensortune/bench/tables/cuda
D=results/gpu/h200-s88
.venv/bin/tensortune bench --tables $T --layers L1,L2,L7,L8 --recipes random,autotvm --budgets 64,256,1000 \
    --seeds 0,1,2 --peers pytorch --out $D/bench-1000 --no-progress
.venv/bin/tensortune bench --tables $T --layers L1,L2,L7,L8 --recipes random,autotvm,chameleon,arco --budgets 64,256 \
    --seeds 0,1,2 --peers pytorch --out $D/bench-256 --no-progress
# chameleon and arco to 1,000 (seed 0 only: a chameleon run to 1,000 took 15 minutes of tuner time here)
.venv/bin/tensortune bench --tables $T --layers L2,L8,L7,L1 --recipes autotvm,chameleon,arco --budgets 64,256,1000 \
    --seeds 0 --peers pytorch --out $D/bench-rl-1000 --no-progress
# seeds 1-2 to 1,000 on L2, L8, L7 (L1's chameleon run alone takes 15 minutes of tuner time)
.venv/bin/tensortune bench --tables $T --layers L2,L8,L7 --recipes autotvm,chameleon,arco --budgets 64,256,1000 \
    --seeds 1,2 --peers pytorch --out $D/bench-rl-1000-s12 --no-progress
.venv/bin/tensortune bench --tables $T --layers L1 --recipes autotvm,chameleon,arco --budgets 64,256,1000 \
    --seeds 1,2 --peers pytorch --out $D/bench-rl-1000-L1s12 --no-progress
