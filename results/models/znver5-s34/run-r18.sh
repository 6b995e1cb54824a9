#!/bin/bash
# issue 14's report, ResNet-18 at 2,000: tensortune, then MetaSchedule at the same budget (resumable), then every peer
cd /work/runs/s34
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 2000 \
  --compare metaschedule,onnxruntime,frozen,eager,untuned --db r18.db --out r18-2000.json --no-progress
date -u +"end %F %T UTC"
