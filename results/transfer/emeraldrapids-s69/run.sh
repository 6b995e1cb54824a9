#!/bin/bash
# Stop 69 (emeraldrapids, code 920681c), nothing else running: the 5x goal's pairs in long sets of the new
# `tensortune bench latency` (per-round ratios kept, bootstrap intervals), then VGG-16 at 500 with transfer, seed 0,
# again with the per-worker random weights of rewritten layouts (stop 68's run of the same cell: 1,050 s tuning,
# fc6 3.15-3.29 s a measurement).
set -u
cd "$(dirname "$0")"
HERE=$PWD
P=/work/main/.venv/bin/python
W=/work/runs/s69
TT="$P -m tensortune.cli.main"
R=/work/runs
lscpu | grep -E "Model name|^CPU\(s\)"
$P -c "import tvm; print(tvm.target.codegen.llvm_get_system_cpu())"
git log --oneline | head -1
echo "== latency resnet18 start $(date -u +%T)"
$TT bench latency --model resnet18 --rounds 40 --no-progress --out $W/latency-resnet18 \
  --lib 200-with-s0=$R/s66/models/lib-resnet18-200-with-s0.so@0 \
  --lib 1000-without-s0=$R/s63/models/lib-resnet18-1000-without-s0.so@0 \
  --lib 200-with-s1=$R/s64/models/lib-resnet18-200-with-s1.so@1 \
  --lib 1000-without-s1=$R/s64/models/lib-resnet18-1000-without-s1.so@1 \
  --lib 200-with-s2=$R/s65/models/lib-resnet18-200-with-s2.so@2 \
  --lib 1000-without-s2=$R/s65/models/lib-resnet18-1000-without-s2.so@2 \
  --pairs 200-with-s0/1000-without-s0,200-with-s1/1000-without-s1,200-with-s2/1000-without-s2
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-resnet18 && cp $W/latency-resnet18/{report.md,results.json,latency.png} latency-resnet18/
echo "== latency vgg16 start $(date -u +%T)"
$TT bench latency --model vgg16 --rounds 20 --no-progress --out $W/latency-vgg16 \
  --lib 200-with=$R/s64/models/lib-vgg16-200-with-s0.so \
  --lib 200-without=$R/s64/models/lib-vgg16-200-without-s0.so \
  --lib 500-with=$R/s68/models/lib-vgg16-500-with-s0.so \
  --lib 500-without=$R/s68/models/lib-vgg16-500-without-s0.so \
  --lib 1000-with=$R/s68/models/lib-vgg16-1000-with-s0.so \
  --lib 1000-without=$R/s67/models/lib-vgg16-1000-without-s0.so \
  --pairs 200-with/1000-without,200-without/1000-without,500-with/500-without,1000-with/1000-without
echo "   rc $? end $(date -u +%T)"
mkdir -p latency-vgg16 && cp $W/latency-vgg16/{report.md,results.json,latency.png} latency-vgg16/
. ../bench-helpers.sh
one vgg16 500 0 with
$P - <<'PY'
import sqlite3, json, statistics
db = sqlite3.connect("/work/runs/s69/models/vgg16-500-with-s0.db")
cols = [r[1] for r in db.execute("pragma table_info(records)")]
print("record columns:", cols)
PY
echo "== all done $(date -u +%T)"
