#!/bin/bash
# issue 14 (stop 42, znver5): VGG-16 at 2,000 against every peer but MetaSchedule, empty database, default transfer,
# --confirm-top 3, 15 rounds (started when models.sh ended)
cd /work/runs/s42
date -u +"start vgg16 2000 %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune tune --model vgg16 --trials 2000 --confirm-top 3 \
  --compare onnxruntime,frozen,eager,untuned --rounds 15 --db vgg16-2000.db --out vgg16-2000 --no-progress > vgg16-2000.log 2>&1
date -u +"end vgg16 2000 %F %T UTC"
