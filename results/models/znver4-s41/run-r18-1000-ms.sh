#!/bin/bash
# issue 14's report on Zen 4, ResNet-18 at 1,000: tensortune (empty database), MetaSchedule at the same budget, every
# peer, one run. MetaSchedule resumes the 549 records of the 2,000-budget run killed at 15:52 (run-r18-ms.sh; its
# work dir copied to metaschedule-1000, its wall time carried over by tensortune-wall.json)
cd /work/runs/s41
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 1000 \
  --compare metaschedule,onnxruntime,frozen,eager,untuned --rounds 15 --db r18-1000.db --out r18-1000 --no-progress
date -u +"end %F %T UTC"
