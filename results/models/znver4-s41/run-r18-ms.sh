#!/bin/bash
# issue 14's report on Zen 4, ResNet-18 at 2,000: tensortune, then MetaSchedule at the same budget, then every peer, one run
cd /work/runs/s41
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 2000 \
  --compare metaschedule,onnxruntime,frozen,eager,untuned --rounds 15 --db r18.db --out r18-2000-ms --no-progress
date -u +"end %F %T UTC"
