#!/bin/bash
cd /work/main
date
.venv/bin/python /work/runs/s95/reconfirm.py results/transfer/znver5-s95/l35-live/results.json /work/runs/s95/l35-reconfirmed L3,L5
.venv/bin/python /work/runs/s95/reconfirm.py results/transfer/znver5-s95/l46-live/results.json /work/runs/s95/l46-reconfirmed L4,L6
.venv/bin/python /work/runs/s95/reconfirm.py results/transfer/znver5-s95/l1-live/results.json /work/runs/s95/l1-reconfirmed L1
date
