#!/bin/bash
# issue 14 (stop 42, znver5): ResNet-18 at 2,000 with --confirm-top 3 against every peer but MetaSchedule
# (MetaSchedule at 2,000 on this CPU kind: stop 34, 8.72 ms, 1:35 h), empty database, default transfer (the new corpus)
cd /work/runs/s42
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model resnet18 --trials 2000 --confirm-top 3 \
  --compare onnxruntime,frozen,eager,untuned --rounds 15 --db r18.db --out r18-2000 --no-progress
date -u +"end %F %T UTC"
