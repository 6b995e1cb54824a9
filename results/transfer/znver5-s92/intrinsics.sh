#!/bin/bash
# Stop 92: what registering only the CPU's tensor intrinsics (src/tensortune/core/intrinsics.py) saves, nothing else
# running. 1) the import alone, 5 interleaved pairs; 2) `tensortune tune --model resnet18 --trials 200` (with
# transfer: the shipped corpus) from an empty database, the code before (commit $BEFORE, via PYTHONPATH) and after,
# interleaved, 2 runs each; the "tasks (N measurements, T s)" line and the whole command's wall time.
# COLD=1: each tune with a fresh TENSORTUNE_TASK_DIR, so that the MetaSchedule-space tasks' design spaces are generated
# (a first run of a model on a machine); otherwise they are read from the cache the earlier runs wrote.
set -u
cd "$(dirname "$0")"
P=/work/main/.venv/bin/python
W=/work/runs/s92/intr
BEFORE=${BEFORE:-dcd6eda}
export TVM_NUM_THREADS=2
mkdir -p $W
lscpu | grep -E "Model name|CPU family|^Model:"; $P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
mkdir -p $W/before; [ -d $W/before/src ] || (git -C /work/main archive $BEFORE src | tar -x -C $W/before)
PYTHONPATH=$W/before/src $P -c "import tensortune, os; print('before:', os.path.dirname(tensortune.__file__))"
for i in $(seq 1 ${PAIRS:-5}); do
  $P -c "import time, tvm; t = time.perf_counter(); import tvm.s_tir.tensor_intrin; print('full import', round(time.perf_counter() - t, 2), 's')"
  $P -c "import time, tvm; t = time.perf_counter(); from tensortune.core.intrinsics import register_tensor_intrinsics as r; r('llvm'); print('x86 only   ', round(time.perf_counter() - t, 2), 's')"
done
for i in 1 2; do
  for v in before after; do
    rm -f $W/$v-$i.db*
    PP=""; [ $v = before ] && PP=$W/before/src
    t0=$(date +%s.%N)
    TD=""; [ "${COLD:-0}" = 1 ] && TD=$W/tasks-$v-$i && rm -rf $TD && mkdir -p $TD
    TENSORTUNE_TASK_DIR=$TD PYTHONPATH=$PP $P -m tensortune.cli.main tune --model resnet18 --trials 200 --seed 0 --db $W/$v-$i.db --out $W/$v-$i.json --no-progress > $W/$v-$i.txt 2>&1
    rc=$?; t1=$(date +%s.%N)
    echo "$v run $i: rc $rc $(grep -o 'tasks ([0-9,]* measurements, [0-9]* s)' $W/$v-$i.txt), command $(echo "$t1 - $t0" | bc) s; $(grep -o 'machine sgemm.*' $W/$v-$i.txt)"
  done
done
