#!/bin/bash
while ! grep -q "== all done" models/vgg.log; do sleep 5; done
/work/main/results/transfer/loo-live-znver4-s60/run.sh > /work/main/results/transfer/loo-live-znver4-s60/run.log 2>&1
echo "live done $(date -u +%T)"
