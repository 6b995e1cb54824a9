#!/bin/bash
# AlexNet at 2,000 on Zen 4 with every peer but MetaSchedule: the build before the dense-layer fix
cd /work/runs/s41
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model alexnet --trials 2000 \
  --compare eager,frozen,onnxruntime,untuned --rounds 15 --db alex.db --out alex-2000 --no-progress
date -u +"end %F %T UTC"
