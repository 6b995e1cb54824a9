#!/bin/bash
cd /work/runs/s42
date -u +"start %F %T UTC"
/usr/bin/time -v /work/main/.venv/bin/tensortune corpus build --db corpus.db --out /work/runs/s42/corpus-llvm-znver5.json.gz --no-progress
date -u +"end %F %T UTC"
