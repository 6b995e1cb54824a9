#!/bin/bash
# stop 47: all.sh's last step again (its build was refused: the library's NAME.json was the tune report, see c4f6bce)
cd /work/runs/s47/all
/work/main/.venv/bin/tensortune build --model resnet18 --db resnet18-1000-wino.db --out resnet18-1000-lib.so
PYTHONPATH=/work/main/src /work/main/.venv/bin/python /work/main/results/transfer/models-znver3-s39/multi.py resnet18 15 \
  tensortune-winograd=resnet18-1000-lib.so metaschedule=resnet18-1000-ms.so 2>&1 | grep -v "Scope Loaded"
