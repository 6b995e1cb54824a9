#!/bin/bash
# stop 47: each Winograd run of all.sh built, profiled and timed in one run beside MetaSchedule at the same budget
# (its stored run of stops 43-45 on the direct-conv graph, copied into the run's work dir: it resumes with nothing
# to tune; a run that would tune is stopped), ONNX Runtime, PyTorch frozen and eager, and TVM untuned
cd /work/runs/s47/all
grep -m1 "model name" /proc/cpuinfo; /work/main/.venv/bin/python -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
for mn in vgg16-2000 alexnet-2000 resnet18-1000; do
  m=${mn%-*}
  /work/main/.venv/bin/tensortune profile --model $m --db $mn-wino.db --compare metaschedule,onnxruntime,frozen,eager,untuned \
    --rounds 15 --out $mn-wino-profile.json > $mn-wino-profile.log 2>&1 &
  pid=$!
  while kill -0 $pid 2>/dev/null; do
    n=${mn#*-}
    if grep -q "MetaSchedule: resuming" $mn-wino-profile.log || \
       (grep -q "metaschedule-[0-9]" $mn-wino-profile.log && ! grep -q "metaschedule-$n\b" $mn-wino-profile.log); then
      kill $pid; echo "$mn: MetaSchedule would tune, stopped"; fi
    sleep 2
  done
  grep -o "MetaSchedule: its [0-9]* records.*" $mn-wino-profile.log
done
