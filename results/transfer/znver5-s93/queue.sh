#!/bin/bash
cd /work/runs/s93
while pgrep -f "fallback.py" > /dev/null; do sleep 5; done
C=$(cat cells.txt)
(CELLS=$C PYTHONPATH=/work/runs/s93/base/src /work/main/.venv/bin/python fallback.py on 0,1,2 fb-on.json >> fb-on.log 2>&1) &
(CELLS=$C PYTHONPATH=/work/runs/s93/base/src /work/main/.venv/bin/python fallback.py off 0,1,2 fb-off.json >> fb-off.log 2>&1) &
wait
