#!/bin/bash
# issue 14 (stop 42, znver5): ResNet-18 at 1,000 and AlexNet at 2,000 against every peer but MetaSchedule, empty
# databases, default transfer, --confirm-top 3, 15 rounds
cd /work/runs/s42
for spec in "resnet18 1000" "alexnet 2000"; do
  set -- $spec
  date -u +"start $1 $2 %F %T UTC"
  /usr/bin/time -v /work/main/.venv/bin/tensortune tune --model $1 --trials $2 --confirm-top 3 \
    --compare onnxruntime,frozen,eager,untuned --rounds 15 --db $1-$2.db --out $1-$2 --no-progress > $1-$2.log 2>&1
  date -u +"end $1 $2 %F %T UTC"
done
